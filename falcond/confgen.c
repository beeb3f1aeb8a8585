/*
 * confgen.c - the configuration generations of falcond: references
 * held by the readers of st->conf (request workers, the reconcile thread)
 * and the SIGHUP swap that frees an old falcon.conf once nobody can read
 * it (confgen.h, falcond_conf_hold).
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "confgen.h"
#include "core/log.h"

/*
 * Configuration generations: g_gens[0..g_ngens) in load order, the last
 * one current (*cur), g_gens[0] numbered g_gen_base.  A reader takes
 * a reference on the current one (falcond_conf_hold) and may then read
 * st->conf, which is that one or a later one.  Generation k is freed
 * once it is not current and no reference on it nor on an older one is
 * left: a reader holding an older generation may have read st->conf
 * while k was current.  The start-up conf is never freed before exit:
 * the chassis table (st->ch[].cc) points into it, and a reload cannot
 * change what it points at (restart_only_change).
 */
struct conf_gen {
	struct falcon_conf *conf;
	unsigned refs;
};
static pthread_mutex_t g_conf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct conf_gen *g_gens;
static size_t g_ngens;
static unsigned g_gen_base;
static struct falcon_conf *g_conf_pinned;

/* free_old_gens - drop the generations nobody can read (g_conf_lock). */
static void free_old_gens(void)
{
	while (g_ngens > 1 && g_gens[0].refs == 0) {
		if (g_gens[0].conf != g_conf_pinned) {
			falcon_conf_free(g_gens[0].conf);
			falcon_verbose("SIGHUP: falcon.conf generation %u freed: no request "
				       "reads it any more", g_gen_base);
		}
		memmove(g_gens, g_gens + 1, (g_ngens - 1) * sizeof(*g_gens));
		g_ngens--;
		g_gen_base++;
	}
}

bool falcond_conf_pin(struct falcon_conf **cur, struct falcon_conf *first)
{
	g_conf_pinned = first;
	return falcond_conf_publish(cur, first);
}

unsigned falcond_conf_hold(void)
{
	unsigned gen;

	pthread_mutex_lock(&g_conf_lock);
	gen = g_gen_base + (unsigned)g_ngens - 1;
	if (g_ngens > 0)
		g_gens[g_ngens - 1].refs++;
	pthread_mutex_unlock(&g_conf_lock);
	return gen;
}

void falcond_conf_release(unsigned gen)
{
	pthread_mutex_lock(&g_conf_lock);
	if (gen - g_gen_base < g_ngens && g_gens[gen - g_gen_base].refs > 0)
		g_gens[gen - g_gen_base].refs--;
	free_old_gens();
	pthread_mutex_unlock(&g_conf_lock);
}

bool falcond_conf_publish(struct falcon_conf **cur, struct falcon_conf *n)
{
	struct conf_gen *grown;

	pthread_mutex_lock(&g_conf_lock);
	grown = realloc(g_gens, (g_ngens + 1) * sizeof(*g_gens));
	if (grown == NULL) {
		pthread_mutex_unlock(&g_conf_lock);
		return false;
	}
	g_gens = grown;
	g_gens[g_ngens].conf = n;
	g_gens[g_ngens].refs = 0;
	g_ngens++;
	__atomic_store_n(cur, n, __ATOMIC_RELEASE);
	free_old_gens();
	pthread_mutex_unlock(&g_conf_lock);
	return true;
}

void falcond_conf_free_all(void)
{
	size_t i;

	for (i = 0; i < g_ngens; i++)
		if (g_gens[i].conf != g_conf_pinned)
			falcon_conf_free(g_gens[i].conf);
	free(g_gens);
	g_gens = NULL;
	g_ngens = 0;
	falcon_conf_free(g_conf_pinned);
	g_conf_pinned = NULL;
}
