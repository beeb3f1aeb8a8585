/*
 * sim_accounts.c - falcon-sim's accounts and the predefined Redfish roles:
 * the accounts file, password checks, role privileges, the ManagerAccount
 * and Role resources, and account changes.  Below sim_redfish.c (which
 * routes the AccountService and turns the statuses here into Redfish
 * error replies) and falcon-sim.c (which authenticates); calls neither.
 *
 * References: DSP0266 1.20 sec. 13.4 (privilege model, the five
 * privileges and the three predefined roles); DSP8011 (Redfish standard
 * registries, Redfish_1.x PrivilegeRegistry: the operation-to-privilege
 * map sim_redfish.c applies); ManagerAccount.v1_12_0, Role.v1_3_2.
 *
 * Copyright (C) 2026 falcon-slurm developers.  GPL-2.0-or-later.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "sim_server.h"
#include "core/util.h"

#define RF "/redfish/v1"

static const char *const role_names[SIM_NROLES] = { "Administrator", "Operator", "ReadOnly" };

unsigned sim_role_privs(sim_role_t role)
{
	switch (role) {
	case SIM_ROLE_ADMIN: return SIM_PRIV_ALL;
	case SIM_ROLE_OPERATOR: return SIM_PRIV_LOGIN | SIM_PRIV_COMPONENTS | SIM_PRIV_SELF;
	case SIM_ROLE_READONLY: return SIM_PRIV_LOGIN | SIM_PRIV_SELF;
	default: return 0;
	}
}

const char *sim_role_name(sim_role_t role)
{
	return role >= 0 && role < SIM_NROLES ? role_names[role] : "None";
}

int sim_role_parse(const char *id)
{
	int i;

	for (i = 0; id != NULL && i < SIM_NROLES; i++)
		if (strcmp(id, role_names[i]) == 0)
			return i;
	return -1;
}

const char *sim_priv_name(unsigned priv)
{
	switch (priv) {
	case SIM_PRIV_LOGIN: return "Login";
	case SIM_PRIV_COMPONENTS: return "ConfigureComponents";
	case SIM_PRIV_MANAGER: return "ConfigureManager";
	case SIM_PRIV_USERS: return "ConfigureUsers";
	case SIM_PRIV_SELF: return "ConfigureSelf";
	default: return "?";
	}
}

const char *sim_priv_names(unsigned privs, char *buf, size_t n)
{
	size_t len = 0;
	unsigned b;

	buf[0] = '\0';
	for (b = SIM_PRIV_LOGIN; b <= SIM_PRIV_SELF && len < n; b <<= 1)
		if (privs & b)
			len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? " or " : "",
						sim_priv_name(b));
	return buf;
}

bool sim_accounts_any(const struct sim_server *srv)
{
	int i;

	for (i = 0; i < SIM_MAX_ACCOUNTS; i++)
		if (srv->accounts[i].used)
			return true;
	return false;
}

int sim_account_find(const struct sim_server *srv, const char *user)
{
	int i;

	for (i = 0; user != NULL && i < SIM_MAX_ACCOUNTS; i++)
		if (srv->accounts[i].used && strcmp(srv->accounts[i].user, user) == 0)
			return i;
	return -1;
}

/* Compare without an early exit on the first differing byte. */
static bool same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = la != lb;

	for (i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

int sim_account_check(const struct sim_server *srv, const char *user, const char *password)
{
	int i = sim_account_find(srv, user);

	if (i < 0 || password == NULL || !srv->accounts[i].enabled ||
	    !same_secret(srv->accounts[i].password, password))
		return -1;
	return i;
}

/* add - a new account; its index, or -1 when the table is full. */
static int add(struct sim_server *srv, const char *user, const char *password, sim_role_t role,
	       bool enabled)
{
	int i;

	for (i = 0; i < SIM_MAX_ACCOUNTS; i++)
		if (!srv->accounts[i].used)
			break;
	if (i == SIM_MAX_ACCOUNTS)
		return -1;
	memset(&srv->accounts[i], 0, sizeof(srv->accounts[i]));
	srv->accounts[i].used = true;
	snprintf(srv->accounts[i].id, sizeof(srv->accounts[i].id), "%lu", ++srv->next_account);
	falcon_strlcpy(srv->accounts[i].user, user, sizeof(srv->accounts[i].user));
	falcon_strlcpy(srv->accounts[i].password, password, sizeof(srv->accounts[i].password));
	srv->accounts[i].role = role;
	srv->accounts[i].enabled = enabled;
	return i;
}

/* A user name we accept: 1..63 printable characters, no blank or ':' / '/'. */
static bool user_ok(const char *u)
{
	size_t n = strlen(u), i;

	if (n == 0 || n >= SIM_NAME_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!isgraph((unsigned char)u[i]) || u[i] == ':' || u[i] == '/')
			return false;
	return true;
}

/* load_line - one line of an accounts file (NUL-terminated, no newline). */
static falcon_err_t load_line(struct sim_server *srv, const char *path, int lineno, char *line,
			      bool admin_line)
{
	char *user, *pass, *role_s, *sp;
	int role = SIM_ROLE_ADMIN;

	if (admin_line) {
		user = line;
		sp = strchr(line, ':');
		if (sp == NULL || sp == line)
			return falcon_err_set(FALCON_ERR_CONFIG, "%s: expected one line \"user:password\"",
					      path);
		*sp = '\0';
		pass = sp + 1;
	} else {
		role_s = line + strspn(line, " \t");
		sp = role_s + strcspn(role_s, " \t");
		if (*sp == '\0')
			goto bad;
		*sp++ = '\0';
		user = sp + strspn(sp, " \t");
		sp = user + strcspn(user, " \t");
		if (*sp == '\0')
			goto bad;
		*sp++ = '\0';
		pass = sp + strspn(sp, " \t");
		if ((role = sim_role_parse(role_s)) < 0)
			return falcon_err_set(FALCON_ERR_CONFIG, "%s:%d: role '%s': expected "
					      "Administrator, Operator or ReadOnly", path, lineno, role_s);
	}
	if (!user_ok(user) || pass[0] == '\0' || strlen(pass) >= SIM_PASS_LEN)
		goto bad;
	if (sim_account_find(srv, user) >= 0)
		return falcon_err_set(FALCON_ERR_CONFIG, "%s:%d: user %s listed twice", path, lineno,
				      user);
	if (add(srv, user, pass, (sim_role_t)role, true) < 0)
		return falcon_err_set(FALCON_ERR_CONFIG, "%s:%d: more than %d accounts", path,
				      lineno, SIM_MAX_ACCOUNTS);
	return FALCON_OK;
bad:
	return falcon_err_set(FALCON_ERR_CONFIG, "%s:%d: expected \"ROLE USER PASSWORD\" "
			      "(a user name without blanks, a password of 1..%d bytes)", path,
			      lineno, SIM_PASS_LEN - 1);
}

falcon_err_t sim_accounts_load(struct sim_server *srv, const char *path, bool admin_line)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	int lineno = 0;
	falcon_err_t rv;

	if ((rv = falcon_read_file(path, 65536, &buf, &len)) != FALCON_OK)
		goto out;
	for (line = buf; line != NULL && *line != '\0'; line = save) {
		save = strchr(line, '\n');
		if (save != NULL)
			*save++ = '\0';
		lineno++;
		line[strcspn(line, "\r")] = '\0';
		if (line[strspn(line, " \t")] == '\0' || line[strspn(line, " \t")] == '#')
			continue;
		if ((rv = load_line(srv, path, lineno, line, admin_line)) != FALCON_OK)
			goto out;
		if (admin_line)
			break;
	}
	if (!sim_accounts_any(srv))
		rv = falcon_err_set(FALCON_ERR_CONFIG, "%s: no account", path);
out:
	if (buf != NULL)
		explicit_bzero(buf, len);
	free(buf);
	return rv;
}

void sim_accounts_wipe(struct sim_server *srv)
{
	explicit_bzero(srv->accounts, sizeof(srv->accounts));
}

static void jstr(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v));
}

static struct json_object *jlink_of(const char *path)
{
	struct json_object *o = json_object_new_object();

	jstr(o, "@odata.id", path);
	return o;
}

struct json_object *sim_account_json(const struct sim_account *a)
{
	struct json_object *o = json_object_new_object(), *links, *types;
	char path[128];

	if (o == NULL)
		return NULL;
	snprintf(path, sizeof(path), RF "/AccountService/Accounts/%s", a->id);
	jstr(o, "@odata.id", path);
	jstr(o, "@odata.type", "#ManagerAccount.v1_12_0.ManagerAccount");
	jstr(o, "Id", a->id);
	jstr(o, "Name", "User Account");
	jstr(o, "UserName", a->user);
	jstr(o, "RoleId", sim_role_name(a->role));
	json_object_object_add(o, "Enabled", json_object_new_boolean(a->enabled));
	json_object_object_add(o, "Locked", json_object_new_boolean(false));
	/* DSP0266 sec. 13.4: the password is write-only and reads as null */
	json_object_object_add(o, "Password", NULL);
	types = json_object_new_array();
	json_object_array_add(types, json_object_new_string("Redfish"));
	json_object_object_add(o, "AccountTypes", types);
	links = json_object_new_object();
	snprintf(path, sizeof(path), RF "/AccountService/Roles/%s", sim_role_name(a->role));
	json_object_object_add(links, "Role", jlink_of(path));
	json_object_object_add(o, "Links", links);
	return o;
}

struct json_object *sim_role_json(sim_role_t role)
{
	struct json_object *o = json_object_new_object(), *privs;
	char path[128];
	unsigned b;

	if (o == NULL)
		return NULL;
	snprintf(path, sizeof(path), RF "/AccountService/Roles/%s", sim_role_name(role));
	jstr(o, "@odata.id", path);
	jstr(o, "@odata.type", "#Role.v1_3_2.Role");
	jstr(o, "Id", sim_role_name(role));
	jstr(o, "Name", sim_role_name(role));
	jstr(o, "RoleId", sim_role_name(role));
	jstr(o, "Description", role == SIM_ROLE_ADMIN ? "Administrator User Role"
	     : role == SIM_ROLE_OPERATOR ? "Operator User Role" : "ReadOnly User Role");
	json_object_object_add(o, "IsPredefined", json_object_new_boolean(true));
	privs = json_object_new_array();
	for (b = SIM_PRIV_LOGIN; b <= SIM_PRIV_SELF; b <<= 1)
		if (sim_role_privs(role) & b)
			json_object_array_add(privs, json_object_new_string(sim_priv_name(b)));
	json_object_object_add(o, "AssignedPrivileges", privs);
	json_object_object_add(o, "OemPrivileges", json_object_new_array());
	return o;
}

/* A string property of body, or NULL (with *bad set when present but not a string). */
static const char *str_prop(struct json_object *body, const char *k, bool *bad)
{
	struct json_object *v;

	if (!json_object_object_get_ex(body, k, &v))
		return NULL;
	if (!json_object_is_type(v, json_type_string)) {
		*bad = true;
		return NULL;
	}
	return json_object_get_string(v);
}

int sim_account_create(struct sim_server *srv, struct json_object *body, int *status,
		       char *msg, size_t n)
{
	const char *u, *pw, *rid;
	struct json_object *en;
	bool bad = false, enabled = true;
	int role, i;

	u = str_prop(body, "UserName", &bad);
	pw = str_prop(body, "Password", &bad);
	rid = str_prop(body, "RoleId", &bad);
	if (json_object_object_get_ex(body, "Enabled", &en)) {
		if (!json_object_is_type(en, json_type_boolean))
			bad = true;
		else
			enabled = json_object_get_boolean(en);
	}
	*status = 400;
	if (bad || u == NULL || pw == NULL || rid == NULL) {
		snprintf(msg, n, "An account needs the string properties UserName, Password and RoleId.");
		return -1;
	}
	if (!user_ok(u) || pw[0] == '\0' || strlen(pw) >= SIM_PASS_LEN) {
		snprintf(msg, n, "UserName or Password has an unsupported value.");
		return -1;
	}
	if ((role = sim_role_parse(rid)) < 0) {
		snprintf(msg, n, "RoleId %.64s is not a role of this service "
			 "(Administrator, Operator, ReadOnly).", rid);
		return -1;
	}
	if (sim_account_find(srv, u) >= 0) {
		*status = 409;
		snprintf(msg, n, "The account %.64s already exists.", u);
		return -1;
	}
	if ((i = add(srv, u, pw, (sim_role_t)role, enabled)) < 0) {
		*status = 507;
		snprintf(msg, n, "All %d accounts are in use.", SIM_MAX_ACCOUNTS);
		return -1;
	}
	falcon_info("account %s (%s) created", u, sim_role_name((sim_role_t)role));
	return i;
}

int sim_account_patch(struct sim_server *srv, int idx, const struct sim_caller *who,
		      struct json_object *body, int *status, char *msg, size_t n)
{
	struct sim_account *a = &srv->accounts[idx];
	bool users = (who->privs & SIM_PRIV_USERS) != 0, bad = false;
	const char *pw = str_prop(body, "Password", &bad), *rid = str_prop(body, "RoleId", &bad);
	struct json_object *en = NULL;
	int role = -1;

	*status = 400;
	json_object_object_foreach(body, k, v) {
		(void)v;
		if (strncmp(k, "@odata.", 7) == 0)
			continue;
		if (strcmp(k, "Password") != 0 && strcmp(k, "RoleId") != 0 && strcmp(k, "Enabled") != 0) {
			snprintf(msg, n, "The property %.64s is not writable.", k);
			return -1;
		}
		if (!users && strcmp(k, "Password") != 0) {
			*status = 403;
			snprintf(msg, n, "ConfigureSelf allows changing the own Password only "
				 "(%.64s needs ConfigureUsers).", k);
			return -1;
		}
	}
	json_object_object_get_ex(body, "Enabled", &en);
	if (bad || (en != NULL && !json_object_is_type(en, json_type_boolean)) ||
	    (pw != NULL && (pw[0] == '\0' || strlen(pw) >= SIM_PASS_LEN)) ||
	    (rid != NULL && (role = sim_role_parse(rid)) < 0)) {
		snprintf(msg, n, "Password, RoleId or Enabled has an unsupported value.");
		return -1;
	}
	if (pw != NULL)
		falcon_strlcpy(a->password, pw, sizeof(a->password));
	if (role >= 0)
		a->role = (sim_role_t)role;
	if (en != NULL)
		a->enabled = json_object_get_boolean(en);
	if (pw != NULL || role >= 0 || en != NULL)
		falcon_info("account %s changed (%s%s%s)", a->user, pw ? "password " : "",
			    role >= 0 ? "role " : "", en ? "enabled" : "");
	return 0;
}
