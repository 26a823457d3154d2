"""Every command-line entry point, each a thin layer over the library code: `configure(parser)`
declares the arguments, `run(args) -> int` executes (see `crane_server.cli`)."""
