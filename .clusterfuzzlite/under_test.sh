# Sourced by build.sh and fuzz/libfuzzer.sh, so that the build ClusterFuzzLite
# runs and the one CI checks instrument the same packages.
#
# under_test MODULE TARGET prints, comma-separated, the packages TARGET tests,
# the only ones its libFuzzer build instruments (go-118-fuzz-build -include):
# package fuzz, which holds it, the sandboxes (core, the reference, with
# internal/spec, the SPEC decisions it makes; mutants, what SBXFUZZ_SUT
# names), and for FuzzParse the .sbx parser and its tokens. The formulations
# FuzzPaths and FuzzResolve hold internal/spec to, in internal/fuzzcheck, are
# harness: they mirror what they check.
under_test() {
  local module=$1 pkgs="$1/fuzz,$1/core,$1/internal/spec,$1/mutants"
  case "$2" in
  FuzzParse) pkgs+=",$module/scenario,$module/internal/token" ;;
  esac
  echo "$pkgs"
}
