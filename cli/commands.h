/* Subcommands of the fovea command. Each takes (argc, argv) with argv[0] the
 * subcommand name and returns the exit status. */
#ifndef FOVEA_CLI_COMMANDS_H
#define FOVEA_CLI_COMMANDS_H

typedef struct fv_cli_command {
    const char *name;
    const char *help;
    int (*run)(int argc, char **argv);
} fv_cli_command;

int fv_cmd_info(int argc, char **argv);
int fv_cmd_demo(int argc, char **argv);
int fv_cmd_version(int argc, char **argv);
int fv_cmd_read(int argc, char **argv);
int fv_cmd_convert(int argc, char **argv);
int fv_cmd_patches(int argc, char **argv);
int fv_cmd_deconvolve(int argc, char **argv);
int fv_cmd_info_file(const char *path, int json);

/* Shared by the commands (cmd-slide.c): a decimal integer (0, or -1 when s is not
 * one); a progress bar on stderr for a fraction 0..1 (a newline at 1). */
#include <stdint.h>
int fv_cli_parse_i64(const char *s, int64_t *out);
void fv_cli_progress(void *user, double fraction);

#endif
