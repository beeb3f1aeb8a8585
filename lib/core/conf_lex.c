/*
 * conf_lex.c - the falcon.conf(5) lexer (see conf_lex.h): a stack of open
 * files (the top one being read, the others waiting at their Include
 * line), each read one logical line at a time and split into words.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/conf_lex.h"
#include "core/util.h"

/* One file being read. */
struct frame {
	const char *file;   /* its name, in lx->files */
	char *text;         /* its contents (owned); NULL for a caller's text */
	char *real;         /* its realpath() (owned); NULL for a caller's text */
	const char *s;      /* the next unread byte */
	int lineno;         /* physical lines read so far */
	char *lb;           /* the logical line being read, joined */
	int *lmap;          /* lmap[i]: physical line of lb[i] */
};

struct conf_lex {
	/* a caller's text, then at most CONF_LEX_MAX_DEPTH + 1 files */
	struct frame frames[CONF_LEX_MAX_DEPTH + 2];
	int nframes;
	int depth;          /* frames that are files (have a realpath) */
	struct conf_tok *toks;  /* the words of the last line */
	size_t cap;
	char **files;       /* every file opened, in order; owned until taken */
	size_t nfiles;
};

/* ---------------------------------------------------------------- */
/* Messages */

falcon_err_t conf_err(const char *file, int line, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return falcon_err_set(FALCON_ERR_CONFIG, "%s:%d: %s", file, line, msg);
}

const char *conf_shown(const char *v, char *buf, size_t n)
{
	if (falcon_strlcpy(buf, v, n) >= n && n > 4)
		strcpy(buf + n - 4, "...");
	return buf;
}

/* ---------------------------------------------------------------- */
/* The file stack */

/* Keep a copy of name in lx->files; *out points to it. */
static falcon_err_t add_file(struct conf_lex *lx, const char *name, const char **out)
{
	char **nf = realloc(lx->files, (lx->nfiles + 1) * sizeof(*nf));

	if (nf == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	lx->files = nf;
	if ((lx->files[lx->nfiles] = strdup(name)) == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	*out = lx->files[lx->nfiles++];
	return FALCON_OK;
}

/*
 * Push a frame over text (owned when real != NULL, both then freed with
 * the frame, on error too), named file (already in lx->files).
 */
static falcon_err_t push(struct conf_lex *lx, const char *file, const char *text,
			 char *owned, char *real)
{
	struct frame *f = &lx->frames[lx->nframes];
	size_t tlen = strlen(text);

	memset(f, 0, sizeof(*f));
	f->lb = malloc(tlen + 1);
	f->lmap = malloc((tlen + 1) * sizeof(int));
	if (f->lb == NULL || f->lmap == NULL) {
		free(f->lb);
		free(f->lmap);
		free(owned);
		free(real);
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	}
	f->file = file;
	f->text = owned;
	f->real = real;
	f->s = text;
	lx->nframes++;
	if (real != NULL)
		lx->depth++;
	return FALCON_OK;
}

static void pop(struct conf_lex *lx)
{
	struct frame *f = &lx->frames[--lx->nframes];

	if (f->real != NULL)
		lx->depth--;
	free(f->text);
	free(f->real);
	free(f->lb);
	free(f->lmap);
}

/*
 * Read and push path.  inc_file/inc_line: the Include line that names it
 * (NULL for the top-level file, whose read errors are returned as they are).
 */
static falcon_err_t push_file(struct conf_lex *lx, const char *path, const char *inc_file,
			      int inc_line)
{
	char *text = NULL, *real = NULL;
	const char *file;
	struct stat st;
	falcon_err_t rv;
	size_t len;
	int i;

	/* An Include of a FIFO or a tty could block forever: regular files only. */
	if (inc_file != NULL && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return conf_err(inc_file, inc_line, "Include: %s is not a regular file", path);
	rv = falcon_read_file(path, CONF_LEX_MAX_BYTES, &text, &len);
	if (rv != FALCON_OK) {
		if (inc_file != NULL) {
			char msg[512];

			falcon_strlcpy(msg, falcon_errmsg(), sizeof(msg));
			rv = conf_err(inc_file, inc_line, "Include: cannot read %s", msg);
		} else if (rv == FALCON_ERR_PARSE) {
			rv = falcon_err_set(FALCON_ERR_CONFIG, "%s: longer than %d bytes",
					    path, CONF_LEX_MAX_BYTES);
		}
		goto fail;
	}
	if (strlen(text) != len) {
		rv = falcon_err_set(FALCON_ERR_CONFIG, "%s: contains a NUL byte", path);
		goto fail;
	}
	real = realpath(path, NULL);
	if (real == NULL) {
		rv = falcon_err_set(FALCON_ERR_IO, "%s: realpath: %s", path, strerror(errno));
		goto fail;
	}
	for (i = 0; i < lx->nframes; i++)
		if (lx->frames[i].real != NULL && strcmp(lx->frames[i].real, real) == 0) {
			rv = conf_err(inc_file, inc_line, "Include: loop: %s is already being read",
				      path);
			goto fail;
		}
	rv = add_file(lx, path, &file);
	if (rv != FALCON_OK)
		goto fail;
	return push(lx, file, text, text, real);
fail:
	free(real);
	free(text);
	return rv;
}

/* "Include PATH" (toks[0] is the word Include) from the top frame. */
static falcon_err_t include(struct conf_lex *lx, const struct conf_tok *toks, size_t n)
{
	const char *file = toks[0].file, *slash;
	char b[CONF_LEX_SHOWN];
	char *target = NULL;
	falcon_err_t rv;

	if (n != 2 || toks[1].text[0] == '\0')
		return conf_err(file, toks[0].line, "Include: expected one PATH");
	slash = strrchr(file, '/');
	if (toks[1].text[0] == '/' || slash == NULL) {
		target = strdup(toks[1].text);
	} else if (asprintf(&target, "%.*s/%s", (int)(slash - file), file,
			    toks[1].text) < 0) {
		target = NULL;
	}
	if (target == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	if (lx->depth > CONF_LEX_MAX_DEPTH)
		rv = conf_err(file, toks[0].line, "Include: '%s' nested more than %d deep",
			      conf_shown(toks[1].text, b, sizeof(b)), CONF_LEX_MAX_DEPTH);
	else
		rv = push_file(lx, target, file, toks[0].line);
	free(target);
	return rv;
}

/* ---------------------------------------------------------------- */
/* Lines and words */

/*
 * Join the next logical line of f into f->lb (returns its length) and
 * f->lmap, comments and the continuations' '\' removed.
 */
static size_t join_line(struct frame *f)
{
	size_t llen = 0;

	while (*f->s != '\0') {
		const char *s = f->s, *nl = strchr(s, '\n');
		size_t plen = nl ? (size_t)(nl - s) : strlen(s), k;
		bool quoted = false, cont = false;

		f->lineno++;
		if (plen > 0 && s[plen - 1] == '\r')
			plen--;
		/* '#' at the start of a word, outside quotes, starts a comment */
		for (k = 0; k < plen; k++) {
			if (s[k] == '"')
				quoted = !quoted;
			else if (s[k] == '#' && !quoted &&
				 (k == 0 || isblank((unsigned char)s[k - 1])))
				break;
		}
		plen = k;
		while (plen > 0 && isblank((unsigned char)s[plen - 1]))
			plen--;
		if (plen > 0 && s[plen - 1] == '\\') {
			plen--;
			cont = true;
		}
		for (k = 0; k < plen; k++) {
			f->lb[llen] = s[k];
			f->lmap[llen++] = f->lineno;
		}
		f->s = nl ? nl + 1 : s + strlen(s);
		if (!cont || *f->s == '\0')
			break;
	}
	return llen;
}

/* Room for one more word in lx->toks. */
static falcon_err_t grow_toks(struct conf_lex *lx, size_t n)
{
	struct conf_tok *nt;

	if (n < lx->cap)
		return FALCON_OK;
	nt = realloc(lx->toks, (lx->cap ? 2 * lx->cap : 16) * sizeof(*nt));
	if (nt == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	lx->toks = nt;
	lx->cap = lx->cap ? 2 * lx->cap : 16;
	return FALCON_OK;
}

/* Split f->lb (len bytes) into words in lx->toks, in place; *n words. */
static falcon_err_t split_words(struct conf_lex *lx, struct frame *f, size_t len,
				size_t *n)
{
	char *s = f->lb;
	size_t i = 0;
	falcon_err_t rv;

	*n = 0;
	while (i < len) {
		struct conf_tok *t;
		bool quoted = false;
		char *out;

		while (i < len && isblank((unsigned char)s[i]))
			i++;
		if (i >= len)
			break;
		if ((rv = grow_toks(lx, *n)) != FALCON_OK)
			return rv;
		t = &lx->toks[*n];
		t->text = out = s + i;
		t->eq = NULL;
		t->file = f->file;
		t->line = f->lmap[i];
		for (; i < len && (quoted || !isblank((unsigned char)s[i])); i++) {
			if (s[i] == '"') {
				quoted = !quoted;
				continue;
			}
			if (s[i] == '=' && !quoted && t->eq == NULL)
				t->eq = out;
			*out++ = s[i];
		}
		if (quoted)
			return conf_err(f->file, t->line, "unterminated '\"'");
		*out = '\0';
		i++;
		(*n)++;
	}
	return FALCON_OK;
}

falcon_err_t conf_lex_next(struct conf_lex *lx, struct conf_tok **toks, size_t *n)
{
	falcon_err_t rv;

	*toks = NULL;
	*n = 0;
	while (lx->nframes > 0) {
		struct frame *f = &lx->frames[lx->nframes - 1];
		size_t len, nw;

		if (*f->s == '\0') {
			pop(lx);
			continue;
		}
		len = join_line(f);
		if ((rv = split_words(lx, f, len, &nw)) != FALCON_OK)
			return rv;
		if (nw == 0)
			continue;
		if (lx->toks[0].eq == NULL && strcasecmp(lx->toks[0].text, "Include") == 0) {
			if ((rv = include(lx, lx->toks, nw)) != FALCON_OK)
				return rv;
			continue;
		}
		*toks = lx->toks;
		*n = nw;
		return FALCON_OK;
	}
	return FALCON_OK;
}

/* ---------------------------------------------------------------- */
/* Life cycle */

falcon_err_t conf_lex_open_file(const char *path, struct conf_lex **out)
{
	struct conf_lex *lx = calloc(1, sizeof(*lx));
	falcon_err_t rv;

	*out = NULL;
	if (lx == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	rv = push_file(lx, path, NULL, 0);
	if (rv != FALCON_OK) {
		conf_lex_free(lx);
		return rv;
	}
	*out = lx;
	return FALCON_OK;
}

falcon_err_t conf_lex_open_text(const char *name, const char *text,
				struct conf_lex **out)
{
	struct conf_lex *lx = calloc(1, sizeof(*lx));
	const char *file;
	falcon_err_t rv;

	*out = NULL;
	if (lx == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	rv = add_file(lx, name, &file);
	if (rv == FALCON_OK)
		rv = push(lx, file, text, NULL, NULL);
	if (rv != FALCON_OK) {
		conf_lex_free(lx);
		return rv;
	}
	*out = lx;
	return FALCON_OK;
}

void conf_lex_take_files(struct conf_lex *lx, char ***files, size_t *nfiles)
{
	*files = lx->files;
	*nfiles = lx->nfiles;
	lx->files = NULL;
	lx->nfiles = 0;
}

void conf_lex_free(struct conf_lex *lx)
{
	size_t i;

	if (lx == NULL)
		return;
	while (lx->nframes > 0)
		pop(lx);
	free(lx->toks);
	for (i = 0; i < lx->nfiles; i++)
		free(lx->files[i]);
	free(lx->files);
	free(lx);
}
