module github.com/sbxfuzz/sbxfuzz

go 1.26
