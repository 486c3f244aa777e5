#include "cli.h"

int
main(int argc, char **argv)
{
    return fovea_cli_main(argc, argv);
}
