/* The fovea command as a library: used by the `fovea` executable and by
 * `python -m fovea` (through the extension), so both run the same code. */
#ifndef FOVEA_CLI_H
#define FOVEA_CLI_H

/* Runs `fovea <subcommand> ...`; argv[0] is the program name. Returns the
 * process exit status (0 success, 1 failure, 2 usage error). Prints to
 * stdout/stderr (the library itself never prints; the CLI does). */
int fovea_cli_main(int argc, char **argv);

#endif
