/*
 * conf_lex.h - the falcon.conf(5) lexer, internal to lib/core: files and
 * Includes to logical lines, logical lines to words.  conf.c pulls one
 * line of words at a time (conf_lex_next()) and gives them meaning; the
 * lexer knows no key and never calls into conf.c.
 *
 * The syntax follows slurm.conf(5) (src/common/parse_config.c): a logical
 * line is one or more physical lines joined where a line ends in '\' (the
 * backslash and the newline are removed, nothing is inserted); '#' at the
 * start of a word begins a comment that runs to the end of the physical
 * line; words are separated by blanks and may contain "double-quoted" parts
 * (blanks and '#' inside quotes are literal, the quotes are removed).  A
 * line "Include PATH" (the word Include in any case, without '=') is
 * replaced by the lines of PATH, relative to the including file's
 * directory, at most CONF_LEX_MAX_DEPTH files deep, loops refused.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#ifndef FALCON_CONF_LEX_H
#define FALCON_CONF_LEX_H

#include <stddef.h>

#include "core/falcon_err.h"

#define CONF_LEX_MAX_BYTES (1024 * 1024) /* a falcon.conf is a few KiB */
#define CONF_LEX_MAX_DEPTH 8             /* Include nesting limit */
#define CONF_LEX_SHOWN 80                /* how much of a bad value a message shows */

/* One word of a logical line. */
struct conf_tok {
	char *text;        /* the word, quotes removed, NUL-terminated */
	char *eq;          /* its first unquoted '=' (in text), NULL when none */
	const char *file;  /* the file it is in (owned by the lexer, see below) */
	int line;          /* physical line (from 1) where the word starts */
};

struct conf_lex;

/*
 * conf_lex_open_file - a lexer over the file path (*out, free with
 * conf_lex_free()).  Returns FALCON_ERR_NOTFOUND/IO when path cannot be
 * read (falcon_read_file()'s detail), FALCON_ERR_CONFIG when it is longer
 * than CONF_LEX_MAX_BYTES or holds a NUL byte, FALCON_ERR_IO when
 * realpath() fails, FALCON_ERR_NOMEM; *out is NULL on error.
 */
falcon_err_t conf_lex_open_file(const char *path, struct conf_lex **out);

/*
 * conf_lex_open_text - a lexer over the NUL-terminated text, named name in
 * tokens and messages (Includes relative to name's directory).  text is
 * not copied: it must outlive the lexer.  FALCON_ERR_NOMEM only.
 */
falcon_err_t conf_lex_open_text(const char *name, const char *text,
				struct conf_lex **out);

/*
 * conf_lex_next - the next logical line holding at least one word, Include
 * lines already followed: *toks (n words, *n >= 1) points into the lexer and
 * stays valid until the next call; the caller may write into the words
 * (e.g. a NUL over *eq).  *n == 0 at the end of the input.  Errors, all
 * FALCON_ERR_CONFIG with "FILE:LINE: ..." unless noted:
 * an unterminated '"'; "Include: expected one PATH"; nesting deeper than
 * CONF_LEX_MAX_DEPTH; an Include that is not a regular file, cannot be
 * read, is too long or holds a NUL; an Include loop; realpath() failure
 * (FALCON_ERR_IO); FALCON_ERR_NOMEM.  After an error the lexer is only fit
 * for conf_lex_free().
 */
falcon_err_t conf_lex_next(struct conf_lex *lx, struct conf_tok **toks, size_t *n);

/*
 * conf_lex_take_files - hand over the names of every file read so far, in
 * the order they were opened (the strings the tokens' file fields point
 * to): *files (an array of *nfiles heap strings) becomes the caller's to
 * free, entry by entry and then the array.  The lexer keeps no copy.
 */
void conf_lex_take_files(struct conf_lex *lx, char ***files, size_t *nfiles);

/* conf_lex_free - free a lexer, and the file names not taken; NULL is fine. */
void conf_lex_free(struct conf_lex *lx);

/*
 * conf_err - record "FILE:LINE: message" (message from fmt, at most 900
 * bytes) as FALCON_ERR_CONFIG in falcon_errmsg(); returns FALCON_ERR_CONFIG.
 */
falcon_err_t conf_err(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * conf_shown - v as a message shows it: copied into buf of size n (n > 4),
 * ending in "..." when cut.  Returns buf.
 */
const char *conf_shown(const char *v, char *buf, size_t n);

#endif /* FALCON_CONF_LEX_H */
