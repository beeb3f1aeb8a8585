/*
 * util.c - bounded number parsing, file helpers, monotonic time.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"

falcon_err_t falcon_strtol(const char *s, int base, long min, long max, long *out)
{
	char *end;
	long v;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
		goto bad;
	errno = 0;
	v = strtol(s, &end, base);
	if (errno != 0 || *end != '\0' || end == s || v < min || v > max)
		goto bad;
	*out = v;
	return FALCON_OK;
bad:
	return falcon_err_set(FALCON_ERR_INVAL, "'%s' is not an integer in [%ld, %ld]",
			      s ? s : "(null)", min, max);
}

falcon_err_t falcon_strtol_n(const char *s, size_t len, int base, long min, long max, long *out)
{
	char b[24];
	size_t i;

	if (s == NULL || len == 0 || len >= sizeof(b) || (base != 10 && base != 16))
		goto bad;
	for (i = 0; i < len; i++)
		if (!(base == 16 ? isxdigit((unsigned char)s[i]) : isdigit((unsigned char)s[i])))
			goto bad;
	memcpy(b, s, len);
	b[len] = '\0';
	return falcon_strtol(b, base, min, max, out);
bad:
	return falcon_err_set(FALCON_ERR_INVAL, "'%.*s' is not an integer in [%ld, %ld]",
			      s ? (int)(len < 64 ? len : 64) : 6, s ? s : "(null)", min, max);
}

falcon_err_t falcon_strtod(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
		goto bad;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || end == s || !isfinite(v) || v < min || v > max)
		goto bad;
	*out = v;
	return FALCON_OK;
bad:
	return falcon_err_set(FALCON_ERR_INVAL, "'%s' is not a number in [%g, %g]",
			      s ? s : "(null)", min, max);
}

/* hex_field - s[0..len) as 1..maxlen hex digits with a value <= max. */
static bool hex_field(const char *s, size_t len, size_t maxlen, long max, long *v)
{
	return len <= maxlen && falcon_strtol_n(s, len, 16, 0, max, v) == FALCON_OK;
}

falcon_err_t falcon_bdf_parse(const char *in, struct falcon_bdf *out)
{
	const char *dot, *c2, *c1;
	long dom = 0, bus, dev, fn;

	if (in == NULL || (dot = strrchr(in, '.')) == NULL ||
	    (c2 = memrchr(in, ':', (size_t)(dot - in))) == NULL)
		goto bad;
	c1 = c2 > in ? memrchr(in, ':', (size_t)(c2 - in)) : NULL;
	if (c1 != NULL && !hex_field(in, (size_t)(c1 - in), 5, 0xfffff, &dom))
		goto bad;
	if (!hex_field(c1 ? c1 + 1 : in, (size_t)(c2 - (c1 ? c1 + 1 : in)), 2, 0xff, &bus) ||
	    !hex_field(c2 + 1, (size_t)(dot - c2 - 1), 2, 0x1f, &dev) ||
	    !hex_field(dot + 1, strlen(dot + 1), 1, 7, &fn))
		goto bad;
	*out = (struct falcon_bdf){ (unsigned)dom, (unsigned)bus, (unsigned)dev, (unsigned)fn };
	return FALCON_OK;
bad:
	return falcon_err_set(FALCON_ERR_INVAL, "BDF '%s': expected [DDDD:]BB:DD.F "
			      "(hex, device <= 1f, function <= 7)", in ? in : "(null)");
}

falcon_err_t falcon_bdf_normalise(const char *in, char out[FALCON_BDF_LEN])
{
	struct falcon_bdf b;
	falcon_err_t rv = falcon_bdf_parse(in, &b);

	if (rv == FALCON_OK)
		snprintf(out, FALCON_BDF_LEN, "%04x:%02x:%02x.%x", b.domain, b.bus, b.dev, b.fn);
	return rv;
}

char *falcon_strf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL; /* vasprintf leaves it undefined on failure */
	va_end(ap);
	return s;
}

size_t falcon_strlcpy(char *dst, const char *src, size_t n)
{
	size_t len = strlen(src);

	if (n > 0) {
		size_t c = len < n - 1 ? len : n - 1;

		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return len;
}

falcon_err_t falcon_str_set(char **dst, const char *v)
{
	char *copy = strdup(v);

	if (copy == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "out of memory");
	free(*dst);
	*dst = copy;
	return FALCON_OK;
}

falcon_err_t falcon_buf_append(char **buf, size_t *len, bool *too_big, const char *data,
			       size_t n, size_t max)
{
	char *nb;

	if (*too_big || n > max || *len > max - n) {
		*too_big = true;
		return FALCON_OK;
	}
	nb = realloc(*buf, *len + n + 1);
	if (nb == NULL)
		return falcon_err_set(FALCON_ERR_NOMEM, "request body of %zu bytes", *len + n);
	memcpy(nb + *len, data, n);
	*buf = nb;
	*len += n;
	nb[*len] = '\0';
	return FALCON_OK;
}

falcon_err_t falcon_read_file(const char *path, size_t max, char **buf, size_t *len)
{
	char *b = NULL;
	size_t cap = 4096, n = 0;
	ssize_t r;
	int fd, saved;
	falcon_err_t rv;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return falcon_err_set(errno == ENOENT ? FALCON_ERR_NOTFOUND : FALCON_ERR_IO,
				      "%s: %s", path, strerror(errno));
	for (;;) {
		if (n + 1 >= cap || b == NULL) {
			char *nb;

			if (b != NULL)
				cap *= 2;
			/* max + 2 wraps for max >= SIZE_MAX - 1 ("no limit") */
			if (max < SIZE_MAX - 2 && cap > max + 2)
				cap = max + 2;
			nb = realloc(b, cap);
			if (nb == NULL) {
				rv = falcon_err_set(FALCON_ERR_NOMEM, "%s: out of memory", path);
				goto fail;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			saved = errno;
			rv = falcon_err_set(FALCON_ERR_IO, "%s: %s", path, strerror(saved));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			rv = falcon_err_set(FALCON_ERR_PARSE, "%s: longer than %zu bytes",
					    path, max);
			goto fail;
		}
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	if (len != NULL)
		*len = n;
	return FALCON_OK;
fail:
	close(fd);
	free(b);
	return rv;
}

falcon_err_t falcon_fsync_dir_of(const char *path)
{
	char dir[PATH_MAX];
	char *slash;
	int dfd, saved;

	falcon_strlcpy(dir, path, sizeof(dir));
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
	else
		strcpy(dir, ".");
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd) < 0) {
		saved = errno;
		if (dfd >= 0)
			close(dfd);
		return falcon_err_set(FALCON_ERR_IO, "%s: fsync: %s", dir, strerror(saved));
	}
	close(dfd);
	return FALCON_OK;
}

/* write_all - len bytes of p to fd, again after EINTR and short writes;
 * 0, or -1 with errno set. */
static int write_all(int fd, const void *p, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, (const char *)p + off, len - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

falcon_err_t falcon_write_file_atomic(const char *path, const void *data,
				      size_t len, unsigned mode)
{
	char tmp[PATH_MAX];
	int fd, saved;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid())
	    >= sizeof(tmp))
		return falcon_err_set(FALCON_ERR_INVAL, "%s: path too long", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return falcon_err_set(FALCON_ERR_IO, "%s: %s", tmp, strerror(errno));
	if (write_all(fd, data, len) < 0)
		goto fail;
	if (fchmod(fd, mode) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	return falcon_fsync_dir_of(path);
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return falcon_err_set(FALCON_ERR_IO, "%s: %s", path, strerror(saved));
}

falcon_err_t falcon_append_file_sync(const char *path, const void *data, size_t len,
				     unsigned mode)
{
	bool created = false;
	struct stat sb;
	off_t size = -1;
	int fd, saved;

	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, mode);
		created = fd >= 0;
	}
	if (fd < 0)
		return falcon_err_set(FALCON_ERR_IO, "%s: %s", path, strerror(errno));
	if (fstat(fd, &sb) < 0)
		goto fail;
	if (!S_ISREG(sb.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	size = sb.st_size;
	if (write_all(fd, data, len) < 0)
		goto fail;
	if (fdatasync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	return created ? falcon_fsync_dir_of(path) : FALCON_OK;
fail:
	saved = errno;
	if (fd >= 0) {
		if (size >= 0 && ftruncate(fd, size) == 0)
			(void)fdatasync(fd);
		close(fd);
	}
	return falcon_err_set(FALCON_ERR_IO, "%s: append: %s", path, strerror(saved));
}

long long falcon_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
