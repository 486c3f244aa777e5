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
int fv_cmd_info_file(const char *path, int json);

#endif
