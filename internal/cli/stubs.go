package cli

func runCampaign(e *env, args []string) int {
	return errorf(e, "run: not yet implemented")
}

func runMinimize(e *env, args []string) int {
	return errorf(e, "minimize: not yet implemented")
}
