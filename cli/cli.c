/* The `fovea` command: a table of subcommands. Later issues add rows. */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "fovea/fovea.h"

static const fv_cli_command fv__commands[] = {
    { "info", "build configuration and backends; with FILE: a slide's levels and properties", fv_cmd_info },
    { "read", "read a region of a slide to PNG, TIFF or .npy", fv_cmd_read },
    { "convert", "write a tiled, pyramidal BigTIFF from any slide", fv_cmd_convert },
    { "patches", "export a grid of patches (batch loader) to .npy or PNGs", fv_cmd_patches },
    { "deconvolve", "Richardson-Lucy deconvolution of a TIFF / OME-TIFF stack (CPU or GPU)", fv_cmd_deconvolve },
    { "demo", "run the core operations on the CPU and, when present, the GPU", fv_cmd_demo },
    { "version", "print the version", fv_cmd_version },
};
#define FV__NCOMMANDS (sizeof fv__commands / sizeof fv__commands[0])

static void
fv__usage(FILE *f)
{
    fprintf(f, "usage: fovea [--version] [--help] <command> [args]\n\ncommands:\n");
    for (size_t i = 0; i < FV__NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", fv__commands[i].name, fv__commands[i].help);
    fprintf(f, "\nRun 'fovea <command> --help' for a command's options.\n");
}

int
fv_cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("fovea %s\n", fv_version());
    return 0;
}

int
fovea_cli_main(int argc, char **argv)
{
    int rc;
    if (argc < 2) {
        fv__usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V"))
        return fv_cmd_version(argc - 1, argv + 1);
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fv__usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < FV__NCOMMANDS; i++)
        if (!strcmp(cmd, fv__commands[i].name)) {
            rc = fv__commands[i].run(argc - 1, argv + 1);
            fflush(stdout);
            return rc;
        }
    fprintf(stderr, "fovea: unknown command '%s'\n\n", cmd);
    fv__usage(stderr);
    return 2;
}
