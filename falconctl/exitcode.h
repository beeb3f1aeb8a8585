/*
 * exitcode.h - falconctl's exit codes (doc/falconctl.1, EXIT STATUS), which
 * every subcommand returns.  Header only, at the bottom of falconctl/.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCONCTL_EXITCODE_H
#define FALCONCTL_EXITCODE_H

enum {
	FALCONCTL_EXIT_OK = 0,
	FALCONCTL_EXIT_FAIL = 1,        /* the operation failed */
	FALCONCTL_EXIT_USAGE = 2,       /* bad arguments or configuration */
	FALCONCTL_EXIT_UNREACHABLE = 3, /* falcond or the chassis did not answer */
	FALCONCTL_EXIT_PERM = 4,        /* authentication or permission refused */
};

#endif /* FALCONCTL_EXITCODE_H */
