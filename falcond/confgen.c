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

/* free_old_gens - drop the generations nobody can read (g->lock). */
static void free_old_gens(struct falcond_confgen *g)
{
	while (g->n > 1 && g->gens[0].refs == 0) {
		if (g->gens[0].conf != g->pinned) {
			falcon_conf_free(g->gens[0].conf);
			falcon_verbose("SIGHUP: falcon.conf generation %u freed: no request "
				       "reads it any more", g->base);
		}
		memmove(g->gens, g->gens + 1, (g->n - 1) * sizeof(*g->gens));
		g->n--;
		g->base++;
	}
}

bool falcond_conf_pin(struct falcond_confgen *g, struct falcon_conf **cur,
		      struct falcon_conf *first)
{
	pthread_mutex_init(&g->lock, NULL);
	g->pinned = first;
	return falcond_conf_publish(g, cur, first);
}

unsigned falcond_conf_hold(struct falcond_confgen *g)
{
	unsigned gen;

	pthread_mutex_lock(&g->lock);
	gen = g->base + (unsigned)g->n - 1;
	if (g->n > 0)
		g->gens[g->n - 1].refs++;
	pthread_mutex_unlock(&g->lock);
	return gen;
}

void falcond_conf_release(struct falcond_confgen *g, unsigned gen)
{
	pthread_mutex_lock(&g->lock);
	if (gen - g->base < g->n && g->gens[gen - g->base].refs > 0)
		g->gens[gen - g->base].refs--;
	free_old_gens(g);
	pthread_mutex_unlock(&g->lock);
}

bool falcond_conf_publish(struct falcond_confgen *g, struct falcon_conf **cur,
			  struct falcon_conf *n)
{
	struct falcond_conf_gen *grown;

	pthread_mutex_lock(&g->lock);
	grown = realloc(g->gens, (g->n + 1) * sizeof(*g->gens));
	if (grown == NULL) {
		pthread_mutex_unlock(&g->lock);
		return false;
	}
	g->gens = grown;
	g->gens[g->n].conf = n;
	g->gens[g->n].refs = 0;
	g->n++;
	__atomic_store_n(cur, n, __ATOMIC_RELEASE);
	free_old_gens(g);
	pthread_mutex_unlock(&g->lock);
	return true;
}

void falcond_conf_free_all(struct falcond_confgen *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->gens[i].conf != g->pinned)
			falcon_conf_free(g->gens[i].conf);
	free(g->gens);
	g->gens = NULL;
	g->n = 0;
	if (g->pinned != NULL)
		pthread_mutex_destroy(&g->lock);
	falcon_conf_free(g->pinned);
	g->pinned = NULL;
}
