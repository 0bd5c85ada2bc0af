// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: the netlink tool of the rclink boards (generic netlink family
 * "rclink", Documentation/netlink/specs/rclink.yaml), in the manner of
 * iproute2's rdma and devlink.  The command line, the JSON keys and the
 * error behaviour are Documentation/uapi/rclink-tool.rst; see rclink(8).
 *
 * Exit status: 0 success, 1 an error (the kernel's extended ack message is
 * printed as "Error: <message>"), 2 a command line the tool cannot parse.
 */

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include <linux/rclink_dev.h>
#include <linux/rclink_nl.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

#define EXIT_USAGE	2

/* the release, from the top-level VERSION file (make tools) */
#ifndef RCLINK_VERSION
#define RCLINK_VERSION	"unknown"
#endif

static bool opt_json, opt_pretty, opt_stats;

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ---- output: text or JSON ---------------------------------------------- */

/*
 * A tiny JSON writer.  Text mode prints "key value" pairs separated by
 * spaces, one object per line.
 */
#define OUT_MAX_DEPTH	8

static struct {
	int depth;
	bool first[OUT_MAX_DEPTH];	/* no member yet at this level */
	bool text_first;		/* no pair yet on this text line */
} out;

static void json_indent(void)
{
	int i;

	if (!opt_pretty)
		return;
	putchar('\n');
	for (i = 0; i < out.depth; i++)
		fputs("    ", stdout);
}

/* Before a member or an array element */
static void json_sep(void)
{
	if (out.depth > 0 && !out.first[out.depth])
		putchar(',');
	if (out.depth > 0) {
		if (!opt_pretty && !out.first[out.depth])
			putchar(' ');
		json_indent();
		out.first[out.depth] = false;
	}
}

static void json_string(const char *s)
{
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\t':
			fputs("\\t", stdout);
			break;
		default:
			if (*p < 0x20)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
	}
	putchar('"');
}

static void json_open(char c)
{
	putchar(c);
	if (out.depth < OUT_MAX_DEPTH - 1)
		out.depth++;
	out.first[out.depth] = true;
}

static void json_close(char c)
{
	bool empty = out.first[out.depth];

	if (out.depth > 0)
		out.depth--;
	if (!empty)
		json_indent();
	putchar(c);
}

static void json_key(const char *key)
{
	json_sep();
	json_string(key);
	fputs(": ", stdout);
}

/*
 * The array of a show command: "[" before the first object, "]" after
 * the last; nothing when the command failed before any object.
 */
static bool out_list_pending, out_list_opened;

static void out_list_start(void)
{
	out_list_pending = opt_json;
}

static void out_list_open(void)
{
	if (out_list_pending) {
		out_list_pending = false;
		out_list_opened = true;
		json_open('[');
	}
}

static void out_list_end(bool ok)
{
	if (ok)
		out_list_open();	/* an empty list: [] */
	if (out_list_opened) {
		json_close(']');
		putchar('\n');
	}
	out_list_pending = false;
	out_list_opened = false;
}

static void out_obj_start(void)
{
	if (opt_json) {
		out_list_open();
		json_sep();
		json_open('{');
	} else {
		out.text_first = true;
	}
}

static void out_obj_end(void)
{
	if (opt_json)
		json_close('}');
	else
		putchar('\n');
}

static void text_pair_sep(void)
{
	if (!out.text_first)
		putchar(' ');
	out.text_first = false;
}

static void out_u64(const char *key, uint64_t val)
{
	if (opt_json) {
		json_key(key);
		printf("%" PRIu64, val);
	} else {
		text_pair_sep();
		printf("%s %" PRIu64, key, val);
	}
}

static void out_str(const char *key, const char *val)
{
	if (opt_json) {
		json_key(key);
		json_string(val);
	} else {
		text_pair_sep();
		printf("%s %s", key, val);
	}
}

/* JSON true/false; text @on or @off */
static void out_bool(const char *key, bool val, const char *on,
		     const char *off)
{
	if (opt_json) {
		json_key(key);
		fputs(val ? "true" : "false", stdout);
	} else {
		text_pair_sep();
		printf("%s %s", key, val ? on : off);
	}
}

/* A nested object ("stats"); in text mode an indented line of its own */
static void out_nest_start(const char *key)
{
	if (opt_json) {
		json_key(key);
		json_open('{');
	} else {
		fputs("\n    ", stdout);
		out.text_first = true;
	}
}

static void out_nest_end(void)
{
	if (opt_json)
		json_close('}');
}

/* Text only: continue a nested object on a new indented line */
static void out_text_break(void)
{
	if (!opt_json) {
		fputs("\n    ", stdout);
		out.text_first = true;
	}
}

/* Text only: a word that names what the line shows ("cbfc") */
static void out_text_label(const char *label)
{
	if (!opt_json) {
		text_pair_sep();
		fputs(label, stdout);
	}
}

/* An array of objects; in text mode each object is a line of its own */
static void out_array_start(const char *key)
{
	if (opt_json) {
		json_key(key);
		json_open('[');
	}
}

static void out_array_end(void)
{
	if (opt_json)
		json_close(']');
}

static void out_elem_start(void)
{
	if (opt_json) {
		json_sep();
		json_open('{');
	} else {
		out_text_break();
	}
}

static void out_elem_end(void)
{
	if (opt_json)
		json_close('}');
}

/* ---- errors -------------------------------------------------------------- */

static void error_msg(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("Error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fputs("Usage: rclink [ -j ] [ -p ] [ -s ] OBJECT COMMAND [ ARGS ]\n"
	      "       rclink { -V | --version | -h | --help | help }\n"
	      "       rclink dev show [ dev NAME ]\n"
	      "       rclink dev set dev NAME [ mac MAC ] [ ip A.B.C.D ] [ ttl N ] [ ip_id N ]\n"
	      "                      [ tc N ] [ ack_tc N ] [ format std|gen1|gen1-tc|gen2|lite ]\n"
	      "                      [ retry_timer USEC ] [ retry_cnt N ] [ rnr_retry_cnt N ]\n"
	      "                      [ ack_timestamp on|off ] [ icrc on|off ]\n"
	      "                      [ vlan off|VID ] [ vlan_pri N ] [ cc_window NS ]\n"
	      "                      [ bank_rr on|off ] [ t2_rate RATE|off ]\n"
	      "                      [ cnp_merge on|off ] [ cnp_window USEC ]\n"
	      "                      [ nocnp USEC|off ] [ cbfc_size BYTES ]\n"
	      "                      [ cbfc_limit N ] [ cbfc_uf type1|type2|type3|ack N ]\n"
	      "                      [ cbfc_dyn on|off ] [ vc_status MASK ]\n"
	      "                      [ bank N tc N ]...\n"
	      "       rclink qp add dev NAME qpn N dqpn N dip A.B.C.D dmac MAC\n"
	      "                     [ sport N ] [ pkey N ] [ rx_pkey N ] [ sq_psn N ]\n"
	      "                     [ rq_psn N ] [ speed N | rate RATE ]\n"
	      "                     [ owner USER ] [ netns NAME|PATH ]\n"
	      "       rclink qp set dev NAME qpn N [ dqpn N ] [ dip A.B.C.D ] [ dmac MAC ]\n"
	      "                     [ sport N ] [ pkey N ] [ rx_pkey N ] [ sq_psn N ]\n"
	      "                     [ rq_psn N ] [ speed N | rate RATE ] [ state ready ]\n"
	      "       rclink qp show [ dev NAME [ qpn N ] ]\n"
	      "       rclink qp del dev NAME qpn N\n"
	      "       rclink mcast show [ dev NAME [ group N ] ]\n"
	      "       rclink mcast set dev NAME group N [ mac MAC ] [ join on|off ]\n"
	      "                        [ owner USER ] [ netns NAME|PATH ]\n"
	      "       rclink mr show [ dev NAME [ key N ] ]\n"
	      "       rclink ctx show [ dev NAME [ id N ] ]\n"
	      "       rclink monitor\n"
	      "Options: -j, --json     JSON output\n"
	      "         -p, --pretty   pretty JSON (implies -j)\n"
	      "         -s, --stats    statistics\n"
	      "         -V, --version  print the version and exit\n"
	      "         -h, --help     print this text and exit\n", f);
}

/* A command line the tool cannot parse: exit 2 */
static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("Error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

/* ---- netlink ------------------------------------------------------------- */

struct rcl_nl {
	struct nl_sock *sock;
	int family;
};


/* The outcome of one request */
struct req_ctx {
	bool done;
	int error;		/* errno, 0 */
	char msg[256];		/* the extended ack message, "" */
	int (*parse)(struct nlattr **tb, void *arg);
	void *arg;
};

static const char *rcl_family;	/* "rclink" */
/* The reply being parsed (its multi-attrs), during a parse callback */
static struct nlmsghdr *cur_nlh;

static int rcl_open(struct rcl_nl *nl)
{
	int one = 1;
	int err;

	rcl_family = RCLINK_FAMILY_NAME;
	nl->sock = nl_socket_alloc();
	if (!nl->sock) {
		error_msg("cannot allocate a netlink socket");
		return -1;
	}
	err = genl_connect(nl->sock);
	if (err < 0) {
		error_msg("cannot open a generic netlink socket: %s",
			  nl_geterror(err));
		return -1;
	}
	/* the kernel's reason for a refusal comes as an extended ack */
	if (setsockopt(nl_socket_get_fd(nl->sock), SOL_NETLINK,
		       NETLINK_EXT_ACK, &one, sizeof(one)) < 0) {
		/* old kernels: errors without messages */
	}
	nl_socket_disable_auto_ack(nl->sock);

	nl->family = genl_ctrl_resolve(nl->sock, rcl_family);
	if (nl->family < 0) {
		error_msg("generic netlink family %s not found (is rclink.ko loaded?)",
			  rcl_family);
		return -1;
	}
	return 0;
}

static void rcl_close(struct rcl_nl *nl)
{
	if (nl->sock)
		nl_socket_free(nl->sock);
	nl->sock = NULL;
}

/* The tool's word for an attribute of a request (the kernel names it) */
static const char *const dev_words[RCLINK_A_DEV_MAX + 1] = {
	[RCLINK_A_DEV_INDEX] = "dev",
	[RCLINK_A_DEV_NAME] = "dev",
	[RCLINK_A_DEV_MAC] = "mac",
	[RCLINK_A_DEV_IP] = "ip",
	[RCLINK_A_DEV_TTL] = "ttl",
	[RCLINK_A_DEV_IP_ID] = "ip_id",
	[RCLINK_A_DEV_TC] = "tc",
	[RCLINK_A_DEV_ACK_TC] = "ack_tc",
	[RCLINK_A_DEV_FORMAT] = "format",
	[RCLINK_A_DEV_RETRY_TIMER] = "retry_timer",
	[RCLINK_A_DEV_RETRY_CNT] = "retry_cnt",
	[RCLINK_A_DEV_RNR_RETRY_CNT] = "rnr_retry_cnt",
	[RCLINK_A_DEV_ACK_TIMESTAMP] = "ack_timestamp",
	[RCLINK_A_DEV_ICRC] = "icrc",
	[RCLINK_A_DEV_VLAN_ID] = "vlan",
	[RCLINK_A_DEV_VLAN_PRI] = "vlan_pri",
	[RCLINK_A_DEV_CC_WINDOW] = "cc_window",
	[RCLINK_A_DEV_BANK_RR] = "bank_rr",
	[RCLINK_A_DEV_T2_RATE] = "t2_rate",
	[RCLINK_A_DEV_CNP_MERGE] = "cnp_merge",
	[RCLINK_A_DEV_CNP_WINDOW_US] = "cnp_window",
	[RCLINK_A_DEV_NOCNP_US] = "nocnp",
	[RCLINK_A_DEV_CBFC_SIZE] = "cbfc_size",
	[RCLINK_A_DEV_CBFC_LIMIT] = "cbfc_limit",
	[RCLINK_A_DEV_CBFC_UF_TYPE1] = "cbfc_uf type1",
	[RCLINK_A_DEV_CBFC_UF_TYPE2] = "cbfc_uf type2",
	[RCLINK_A_DEV_CBFC_UF_TYPE3] = "cbfc_uf type3",
	[RCLINK_A_DEV_CBFC_UF_ACK] = "cbfc_uf ack",
	[RCLINK_A_DEV_CBFC_DYN] = "cbfc_dyn",
	[RCLINK_A_DEV_VC_STATUS] = "vc_status",
	[RCLINK_A_DEV_BANK] = "bank",
};

static const char *const qp_words[RCLINK_A_QP_MAX + 1] = {
	[RCLINK_A_QP_DEV_INDEX] = "dev",
	[RCLINK_A_QP_DEV_NAME] = "dev",
	[RCLINK_A_QP_QPN] = "qpn",
	[RCLINK_A_QP_DQPN] = "dqpn",
	[RCLINK_A_QP_DIP] = "dip",
	[RCLINK_A_QP_DMAC] = "dmac",
	[RCLINK_A_QP_SPORT] = "sport",
	[RCLINK_A_QP_PKEY] = "pkey",
	[RCLINK_A_QP_RX_PKEY] = "rx_pkey",
	[RCLINK_A_QP_SQ_PSN] = "sq_psn",
	[RCLINK_A_QP_RQ_PSN] = "rq_psn",
	[RCLINK_A_QP_SPEED] = "speed",
	[RCLINK_A_QP_STATE] = "state",
	[RCLINK_A_QP_RATE] = "rate",
	[RCLINK_A_QP_OWNER_UID] = "owner",
	[RCLINK_A_QP_OWNER_NETNS_FD] = "netns",
};

static const char *const mcast_words[RCLINK_A_MCAST_MAX + 1] = {
	[RCLINK_A_MCAST_DEV_INDEX] = "dev",
	[RCLINK_A_MCAST_DEV_NAME] = "dev",
	[RCLINK_A_MCAST_DMAC] = "dmac",
	[RCLINK_A_MCAST_GROUP] = "group",
	[RCLINK_A_MCAST_JOIN] = "join",
	[RCLINK_A_MCAST_OWNER_UID] = "owner",
	[RCLINK_A_MCAST_OWNER_NETNS_FD] = "netns",
};

/*
 * The word of the request's attribute at byte @offs of the request @req
 * (NLMSGERR_ATTR_OFFS), or NULL: a top-level attribute, or the nest (bank)
 * holding it.
 */
static const char *ext_ack_attr_word(const struct nlmsghdr *req, uint32_t offs)
{
	const char *base = (const char *)req;
	const struct nlattr *a;
	uint8_t cmd;
	int rem;

	if (req->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
	    offs >= req->nlmsg_len)
		return NULL;
	cmd = ((const struct genlmsghdr *)NLMSG_DATA(req))->cmd;
	a = (const struct nlattr *)(base + NLMSG_HDRLEN + GENL_HDRLEN);
	rem = (int)req->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	for (; nla_ok(a, rem); a = nla_next(a, &rem)) {
		uint32_t start = (uint32_t)((const char *)a - base);
		int type = nla_type(a);

		if (offs < start || offs >= start + a->nla_len)
			continue;
		switch (cmd) {
		case RCLINK_CMD_DEV_SET:
			return type <= RCLINK_A_DEV_MAX ? dev_words[type] : NULL;
		case RCLINK_CMD_QP_NEW:
		case RCLINK_CMD_QP_SET:
		case RCLINK_CMD_QP_GET:
		case RCLINK_CMD_QP_DEL:
			return type <= RCLINK_A_QP_MAX ? qp_words[type] : NULL;
		case RCLINK_CMD_MCAST_SET:
		case RCLINK_CMD_MCAST_GET:
			return type <= RCLINK_A_MCAST_MAX ?
			       mcast_words[type] : NULL;
		default:
			/* dev-get: the board only, the same in every set */
			return type <= RCLINK_A_DEV_NAME ? dev_words[type] : NULL;
		}
	}
	return NULL;
}

/*
 * The range of a policy the request failed (NLMSGERR_ATTR_POLICY): append
 * " (MIN..MAX)" to @buf when the kernel gave one.
 */
static void ext_ack_range(struct nlattr *pol, char *buf, size_t size)
{
	struct nlattr *tb[NL_POLICY_TYPE_ATTR_MAX + 1];
	size_t n = strlen(buf);

	if (nla_parse_nested(tb, NL_POLICY_TYPE_ATTR_MAX, pol, NULL) < 0)
		return;
	if (tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U] &&
	    tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U])
		snprintf(buf + n, size - n, " (%llu..%llu)",
			 (unsigned long long)nla_get_u64(tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U]),
			 (unsigned long long)nla_get_u64(tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]));
	else if (tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_S] &&
		 tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_S])
		snprintf(buf + n, size - n, " (%lld..%lld)",
			 (long long)nla_get_s64(tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_S]),
			 (long long)nla_get_s64(tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_S]));
}

/*
 * The TLVs after the struct nlmsgerr of an error or the errno of a DONE:
 * copy NLMSGERR_ATTR_MSG.  A refusal by the family's policy (the kernel
 * says which attribute and gives the policy) is told with the tool's word
 * for the attribute and the valid range: "ttl: integer out of range (1..255)".
 * @req: the request when the error carries it whole, else NULL.
 */
static void ext_ack_msg(struct nlmsghdr *nlh, size_t off, struct req_ctx *ctx,
			const struct nlmsghdr *req)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	const char *word = NULL;
	int len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)off;
	if (len <= 0)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)nlmsg_data(nlh) + off), len,
		      NULL) < 0)
		return;
	if (!tb[NLMSGERR_ATTR_MSG])
		return;
	if (tb[NLMSGERR_ATTR_POLICY] && tb[NLMSGERR_ATTR_OFFS] && req)
		word = ext_ack_attr_word(req, nla_get_u32(tb[NLMSGERR_ATTR_OFFS]));
	if (!word) {
		snprintf(ctx->msg, sizeof(ctx->msg), "%s",
			 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
		return;
	}
	snprintf(ctx->msg, sizeof(ctx->msg), "%s: %s", word,
		 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	ext_ack_range(tb[NLMSGERR_ATTR_POLICY], ctx->msg, sizeof(ctx->msg));
}

static int cb_error(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)err - NLMSG_HDRLEN);
	struct req_ctx *ctx = arg;
	const struct nlmsghdr *req = NULL;
	size_t off = sizeof(*err);

	(void)nla;
	ctx->error = -err->error;
	ctx->done = true;
	/* the request comes back whole unless capped: the TLVs follow it */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
		req = &err->msg;
	}
	ext_ack_msg(nlh, off, ctx, req);
	return NL_STOP;
}

static int cb_ack(struct nl_msg *msg, void *arg)
{
	struct req_ctx *ctx = arg;

	(void)msg;
	ctx->done = true;
	return NL_STOP;
}

/* NLMSG_DONE of a dump: an int (the dump's error), then ext ack TLVs */
static int cb_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct req_ctx *ctx = arg;
	int err;

	ctx->done = true;
	if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int)) {
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		if (err < 0) {
			ctx->error = -err;
			ext_ack_msg(nlh, sizeof(int), ctx, NULL);
		}
	}
	return NL_STOP;
}

/* The largest attribute of the top-level sets: a reply's table */
#define RCL_MAX2(a, b)	((int)(a) > (int)(b) ? (int)(a) : (int)(b))
#define RCL_A_MAX	RCL_MAX2(RCL_MAX2(RCLINK_A_DEV_MAX, RCLINK_A_MR_MAX), \
				 RCL_MAX2(RCLINK_A_QP_MAX, RCLINK_A_MCAST_MAX))

static int cb_valid(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[RCL_A_MAX + 1];
	struct req_ctx *ctx = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	/* the parser knows the set of its reply (dev, qp or mcast) */
	if (genlmsg_parse(nlh, 0, tb, RCL_A_MAX, NULL) < 0)
		return NL_SKIP;
	/* tb has the last of a multi-attr: a parser walks the message */
	cur_nlh = nlh;
	if (ctx->parse)
		ctx->parse(tb, ctx->arg);
	cur_nlh = NULL;
	return NL_OK;
}

/* Report the outcome of a request; 0 or 1 (the exit status) */
static int req_report(struct req_ctx *ctx, int nlerr)
{
	if (ctx->error) {
		if (ctx->msg[0])
			error_msg("%s", ctx->msg);
		else
			error_msg("%s", strerror(ctx->error));
		return 1;
	}
	if (nlerr < 0) {
		error_msg("netlink: %s", nl_geterror(nlerr));
		return 1;
	}
	return 0;
}

/*
 * Send @msg and receive until the ACK (do) or DONE (dump), calling @parse
 * for every reply.  Returns the exit status.
 */
static int rcl_request(struct rcl_nl *nl, struct nl_msg *msg,
		      int (*parse)(struct nlattr **tb, void *arg), void *arg)
{
	struct req_ctx ctx = { .parse = parse, .arg = arg };
	struct nl_cb *cb;
	int err;

	/* the command line is parsed: now the socket and the family */
	if (!nl->sock && rcl_open(nl)) {
		nlmsg_free(msg);
		return 1;
	}
	nlmsg_hdr(msg)->nlmsg_type = nl->family;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		error_msg("out of memory");
		return 1;
	}
	nl_cb_err(cb, NL_CB_CUSTOM, cb_error, &ctx);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, cb_ack, &ctx);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, cb_finish, &ctx);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, cb_valid, &ctx);

	err = nl_send_auto(nl->sock, msg);
	nlmsg_free(msg);
	while (err >= 0 && !ctx.done)
		err = nl_recvmsgs(nl->sock, cb);
	nl_cb_put(cb);
	if (ctx.done && !ctx.error)
		err = 0;
	return req_report(&ctx, err);
}

/*
 * A request of @cmd: a do with an ACK, or a dump.  The family's id goes
 * into the header when it is sent (rcl_request()).
 */
static struct nl_msg *rcl_msg_new(struct rcl_nl *nl, uint8_t cmd, bool dump)
{
	struct nl_msg *msg;

	(void)nl;
	msg = nlmsg_alloc();
	if (!msg) {
		error_msg("out of memory");
		exit(1);
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0,
			 dump ? NLM_F_DUMP : NLM_F_ACK, cmd,
			 RCLINK_FAMILY_VERSION)) {
		error_msg("out of memory");
		exit(1);
	}
	return msg;
}

static void put_fail(void)
{
	error_msg("netlink message too long");
	exit(1);
}

/* ---- arguments ----------------------------------------------------------- */

static bool keyword(const char *arg, const char *word)
{
	return !strcmp(arg, word);
}

/* The value after a keyword */
static const char *arg_value(int *argc, char ***argv)
{
	const char *key = **argv;

	if (*argc < 2)
		usage_error("\"%s\" needs a value", key);
	(*argc)--;
	(*argv)++;
	return **argv;
}

/* A decimal (or 0x hexadecimal) number of 0..@max */
static uint64_t parse_num(const char *key, const char *s, uint64_t max)
{
	unsigned long long v;
	char *end;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16;
	if (!isxdigit((unsigned char)s[base == 16 ? 2 : 0]))
		usage_error("%s: \"%s\" is not a number", key, s);
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end)
		usage_error("%s: \"%s\" is not a number", key, s);
	if (v > max)
		usage_error("%s: %s is above %" PRIu64, key, s, max);
	return v;
}

/* owner USER: a user name or a uid */
static uint32_t parse_user(const char *key, const char *s)
{
	struct passwd *pw;

	if (isdigit((unsigned char)s[0]))
		return parse_num(key, s, UINT32_MAX - 1);
	pw = getpwnam(s);
	if (!pw)
		usage_error("%s: no user \"%s\"", key, s);
	return pw->pw_uid;
}

/*
 * netns NAME|PATH: an open file of the network namespace, /run/netns/NAME
 * (ip netns) or a path such as /proc/PID/ns/net.  It stays open until the
 * tool exits: the kernel reads it when the request arrives.
 */
static int open_netns(const char *key, const char *s)
{
	char path[256];
	int fd;

	if (strchr(s, '/'))
		snprintf(path, sizeof(path), "%s", s);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", s);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		usage_error("%s: %s: %s", key, path, strerror(errno));
	return fd;
}

/* Rate units, tc's: bit/s with an SI prefix */
static const struct {
	const char *unit;
	uint64_t mult;
} rate_units[] = {
	{ "tbit", 1000000000000ULL }, { "gbit", 1000000000ULL },
	{ "mbit", 1000000ULL }, { "kbit", 1000ULL }, { "bit", 1ULL },
};

/* "10gbit", "2.5gbit", "800mbit", "1000000" (bit/s) */
static uint64_t parse_rate(const char *key, const char *s)
{
	long double v;
	char *end;
	unsigned int i;

	errno = 0;
	v = strtold(s, &end);
	if (errno || end == s || v < 0 || !isdigit((unsigned char)s[0]))
		usage_error("%s: \"%s\" is not a rate (e.g. 10gbit, 800mbit)",
			    key, s);
	if (*end) {
		for (i = 0; i < ARRAY_SIZE(rate_units); i++)
			if (!strcasecmp(end, rate_units[i].unit))
				break;
		if (i == ARRAY_SIZE(rate_units))
			usage_error("%s: unknown unit \"%s\" (bit, kbit, mbit, gbit, tbit)",
				    key, end);
		v *= rate_units[i].mult;
	}
	if (v < 1 || v > 18e18)
		usage_error("%s: %s is out of range", key, s);
	return (uint64_t)(v + 0.5);
}

/* A rate in the largest unit it is a whole number of, e.g. "10gbit" */
static void format_rate(char *buf, size_t len, uint64_t v)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rate_units); i++)
		if (v && v % rate_units[i].mult == 0)
			break;
	if (i == ARRAY_SIZE(rate_units))
		i = ARRAY_SIZE(rate_units) - 1;
	snprintf(buf, len, "%" PRIu64 "%s", v / rate_units[i].mult,
		 rate_units[i].unit);
}

static uint32_t parse_ipv4(const char *key, const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		usage_error("%s: \"%s\" is not an IPv4 address", key, s);
	return a.s_addr;	/* network order */
}

static void parse_mac(const char *key, const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char c;
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2],
		   &b[3], &b[4], &b[5], &c) != 6 || strlen(s) != 17)
		usage_error("%s: \"%s\" is not a MAC address", key, s);
	for (i = 0; i < 6; i++)
		mac[i] = b[i];
}

static bool parse_on_off(const char *key, const char *s)
{
	if (keyword(s, "on"))
		return true;
	if (keyword(s, "off"))
		return false;
	usage_error("%s: \"%s\" is neither on nor off", key, s);
}

static const char * const format_names[] = {
	[RCLINK_FORMAT_STANDARD] = "standard",
	[RCLINK_FORMAT_GEN1] = "gen1",
	[RCLINK_FORMAT_GEN2] = "gen2",
	[RCLINK_FORMAT_LITE] = "lite",
	[RCLINK_FORMAT_GEN1_TC] = "gen1-tc",
};

static const char * const fc_names[] = {
	[RCLINK_FLOW_CONTROL_PFC] = "pfc",
	[RCLINK_FLOW_CONTROL_CBFC] = "cbfc",
};

/* The flows of CBFC, as `dev show -s` names them */
static const char * const cbfc_flow_names[] = {
	[RCLINK_FC_FLOW_TYPE1_BANK0] = "type1_bank0",
	[RCLINK_FC_FLOW_TYPE1_BANK1] = "type1_bank1",
	[RCLINK_FC_FLOW_TYPE1_BANK2] = "type1_bank2",
	[RCLINK_FC_FLOW_TYPE1_BANK3] = "type1_bank3",
	[RCLINK_FC_FLOW_ACKCNP] = "ackcnp",
	[RCLINK_FC_FLOW_TYPE2] = "type2",
	[RCLINK_FC_FLOW_TYPE3] = "type3",
};

/* cbfc_uf CLASS N: the attribute of each class */
static const struct {
	const char *name;
	int attr;
} cbfc_uf_classes[] = {
	{ "type1", RCLINK_A_DEV_CBFC_UF_TYPE1 },
	{ "type2", RCLINK_A_DEV_CBFC_UF_TYPE2 },
	{ "type3", RCLINK_A_DEV_CBFC_UF_TYPE3 },
	{ "ack", RCLINK_A_DEV_CBFC_UF_ACK },
};

static const char * const state_names[] = {
	[RCLINK_QP_STATE_RESET] = "reset",
	[RCLINK_QP_STATE_READY] = "ready",
	[RCLINK_QP_STATE_FATAL] = "fatal",
};


static unsigned int parse_name(const char *key, const char *s,
			       const char * const *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (names[i] && keyword(s, names[i]))
			return i;
	usage_error("%s: unknown value \"%s\"", key, s);
}

static const char *name_of(const char * const *names, unsigned int n,
			   unsigned int v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

/* ---- dev ------------------------------------------------------------------ */

static const char * const dev_stat_names[] = {
	[RCLINK_A_DEV_STATS_RX_DROP_DA] = "rx_drop_da",
	[RCLINK_A_DEV_STATS_RX_DROP_CSUM] = "rx_drop_csum",
	[RCLINK_A_DEV_STATS_RX_DROP_ICRC] = "rx_drop_icrc",
	[RCLINK_A_DEV_STATS_RX_DROP_PKEY] = "rx_drop_pkey",
	[RCLINK_A_DEV_STATS_RX_DROP_BADQP] = "rx_drop_badqp",
	[RCLINK_A_DEV_STATS_RX_DROP_QP_OFF] = "rx_drop_qp_off",
	[RCLINK_A_DEV_STATS_RX_DROP_NOBUF] = "rx_drop_nobuf",
	[RCLINK_A_DEV_STATS_RX_DROP_MALFORMED] = "rx_drop_malformed",
	[RCLINK_A_DEV_STATS_TX_DROP_QP_OFF] = "tx_drop_qp_off",
	[RCLINK_A_DEV_STATS_BAD_WQE] = "bad_wqe",
	[RCLINK_A_DEV_STATS_RX_DROP_FORMAT] = "rx_drop_format",
	[RCLINK_A_DEV_STATS_T2_TX_PKTS] = "t2_tx_pkts",
	[RCLINK_A_DEV_STATS_T2_TX_DROP] = "t2_tx_drop",
	[RCLINK_A_DEV_STATS_T2_RX_PKTS] = "t2_rx_pkts",
	[RCLINK_A_DEV_STATS_T2_RX_DROP_NOGROUP] = "t2_rx_drop_nogroup",
	[RCLINK_A_DEV_STATS_T2_RX_DROP_NOBUF] = "t2_rx_drop_nobuf",
	[RCLINK_A_DEV_STATS_T2_RX_DROP_MALFORMED] = "t2_rx_drop_malformed",
	[RCLINK_A_DEV_STATS_T2_RX_LOST] = "t2_rx_lost",
	[RCLINK_A_DEV_STATS_T2_RX_DROP_OLD] = "t2_rx_drop_old",
	[RCLINK_A_DEV_STATS_T1_OST_FREE] = "t1_ost_free",
	[RCLINK_A_DEV_STATS_RX_IDLE] = "rx_idle",
	[RCLINK_A_DEV_STATS_TX_IDLE] = "tx_idle",
	[RCLINK_A_DEV_STATS_TX_WAIT_MAC_CRD] = "tx_wait_mac_crd",
	[RCLINK_A_DEV_STATS_TX_MAC_FREE] = "tx_mac_free",
	[RCLINK_A_DEV_STATS_T2_OST_FREE] = "t2_ost_free",
	[RCLINK_A_DEV_STATS_T2_CRD] = "t2_crd",
	[RCLINK_A_DEV_STATS_CNP_MERGED] = "cnp_merged",
	[RCLINK_A_DEV_STATS_RDMA_TX_WRITE] = "rdma_tx_write",
	[RCLINK_A_DEV_STATS_RDMA_TX_READ] = "rdma_tx_read",
	[RCLINK_A_DEV_STATS_RDMA_RX_WRITE] = "rdma_rx_write",
	[RCLINK_A_DEV_STATS_RDMA_RX_READ] = "rdma_rx_read",
	[RCLINK_A_DEV_STATS_RDMA_RX_BAD_KEY] = "rdma_rx_bad_key",
	[RCLINK_A_DEV_STATS_RDMA_RX_ACCESS] = "rdma_rx_access",
	[RCLINK_A_DEV_STATS_RDMA_RX_BOUNDS] = "rdma_rx_bounds",
	[RCLINK_A_DEV_STATS_RDMA_RX_SILENT] = "rdma_rx_silent",
	[RCLINK_A_DEV_STATS_RDMA_REM_ERR] = "rdma_rem_err",
	[RCLINK_A_DEV_STATS_RDMA_TIMEOUT] = "rdma_timeout",
	[RCLINK_A_DEV_STATS_RDMA_RX_LATE] = "rdma_rx_late",
	[RCLINK_A_DEV_STATS_RDMA_RX_IMM_DROP] = "rdma_rx_imm_drop",
	[RCLINK_A_DEV_STATS_CTX_DB_DROP] = "ctx_db_drop",
	[RCLINK_A_DEV_STATS_DMA_BM_DROP] = "dma_bm_drop",
};

static void out_attr_u(struct nlattr **tb, int type, const char *key, int w)
{
	if (!tb[type])
		return;
	switch (w) {
	case 8:
		out_u64(key, nla_get_u8(tb[type]));
		break;
	case 16:
		out_u64(key, nla_get_u16(tb[type]));
		break;
	case 32:
		out_u64(key, nla_get_u32(tb[type]));
		break;
	default:
		out_u64(key, nla_get_u64(tb[type]));
		break;
	}
}

/* A rate: JSON in bit/s; text in tc's units, 0 as "off" */
static void out_attr_rate(struct nlattr **tb, int type, const char *key)
{
	uint64_t rate;
	char buf[32];

	if (!tb[type])
		return;
	rate = nla_get_u64(tb[type]);
	if (opt_json) {
		out_u64(key, rate);
	} else if (!rate) {
		out_str(key, "off");
	} else {
		format_rate(buf, sizeof(buf), rate);
		out_str(key, buf);
	}
}

static void out_attr_ipv4(struct nlattr **tb, int type, const char *key)
{
	char buf[INET_ADDRSTRLEN];
	uint32_t a;

	if (!tb[type])
		return;
	a = nla_get_u32(tb[type]);
	inet_ntop(AF_INET, &a, buf, sizeof(buf));
	out_str(key, buf);
}

static void out_attr_mac(struct nlattr **tb, int type, const char *key)
{
	const uint8_t *m;
	char buf[18];

	if (!tb[type] || nla_len(tb[type]) != 6)
		return;
	m = nla_data(tb[type]);
	snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1],
		 m[2], m[3], m[4], m[5]);
	out_str(key, buf);
}

static void out_attr_bool(struct nlattr **tb, int type, const char *key,
			  const char *on, const char *off)
{
	if (tb[type])
		out_bool(key, nla_get_u8(tb[type]), on, off);
}

/* The CBFC settings (cbfc mode only) */
static void dev_cbfc_settings(struct nlattr **tb)
{
	char buf[8];

	out_attr_u(tb, RCLINK_A_DEV_CBFC_SIZE, "cbfc_size", 32);
	out_attr_u(tb, RCLINK_A_DEV_CBFC_LIMIT, "cbfc_limit", 32);
	out_attr_u(tb, RCLINK_A_DEV_CBFC_UF_TYPE1, "cbfc_uf_type1", 8);
	out_attr_u(tb, RCLINK_A_DEV_CBFC_UF_TYPE2, "cbfc_uf_type2", 8);
	out_attr_u(tb, RCLINK_A_DEV_CBFC_UF_TYPE3, "cbfc_uf_type3", 8);
	out_attr_u(tb, RCLINK_A_DEV_CBFC_UF_ACK, "cbfc_uf_ack", 8);
	out_attr_bool(tb, RCLINK_A_DEV_CBFC_DYN, "cbfc_dyn", "on", "off");
	/* vc_status: a number in JSON, hexadecimal in text */
	if (tb[RCLINK_A_DEV_VC_STATUS]) {
		if (opt_json) {
			out_attr_u(tb, RCLINK_A_DEV_VC_STATUS, "vc_status", 8);
		} else {
			snprintf(buf, sizeof(buf), "0x%02x",
				 nla_get_u8(tb[RCLINK_A_DEV_VC_STATUS]));
			out_str("vc_status", buf);
		}
	}
}

/* One flow of cbfc-stats */
static void dev_cbfc_flow(struct nlattr *attr)
{
	struct nlattr *f[RCLINK_A_CBFC_FLOW_MAX + 1];

	if (nla_parse_nested(f, RCLINK_A_CBFC_FLOW_MAX, attr, NULL) < 0)
		return;
	out_elem_start();
	if (f[RCLINK_A_CBFC_FLOW_ID])
		out_str("flow", name_of(cbfc_flow_names,
					ARRAY_SIZE(cbfc_flow_names),
					nla_get_u8(f[RCLINK_A_CBFC_FLOW_ID])));
	out_attr_u(f, RCLINK_A_CBFC_FLOW_VC, "vc", 8);
	out_attr_u(f, RCLINK_A_CBFC_FLOW_CREDITS, "credits", 32);
	out_attr_bool(f, RCLINK_A_CBFC_FLOW_ON, "on", "yes", "no");
	out_elem_end();
}

/* One VC of cbfc-stats */
static void dev_cbfc_vc(struct nlattr *attr)
{
	struct nlattr *v[RCLINK_A_CBFC_VC_MAX + 1];

	if (nla_parse_nested(v, RCLINK_A_CBFC_VC_MAX, attr, NULL) < 0)
		return;
	out_elem_start();
	out_attr_u(v, RCLINK_A_CBFC_VC_ID, "vc", 8);
	out_attr_bool(v, RCLINK_A_CBFC_VC_LOADED, "loaded", "yes", "no");
	out_attr_bool(v, RCLINK_A_CBFC_VC_ON, "on", "yes", "no");
	out_attr_u(v, RCLINK_A_CBFC_VC_RX_BUF, "rx_buf", 32);
	out_attr_u(v, RCLINK_A_CBFC_VC_RX_DROP, "rx_drop", 64);
	out_attr_u(v, RCLINK_A_CBFC_VC_TX_BLOCKED, "tx_blocked", 64);
	out_elem_end();
}

/*
 * The TYPE1 banks: JSON an array "banks" of {"bank", "tc", "vc"} ("vc" in
 * cbfc mode only), text a line per bank in the syntax of dev set
 */
static void dev_banks(void)
{
	struct genlmsghdr *gnlh;
	struct nlattr *b[RCLINK_A_BANK_MAX + 1];
	struct nlattr *pos;
	bool any = false;
	int rem;

	if (!cur_nlh)
		return;
	gnlh = nlmsg_data(cur_nlh);
	nla_for_each_attr(pos, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(pos) != RCLINK_A_DEV_BANK ||
		    nla_parse_nested(b, RCLINK_A_BANK_MAX, pos, NULL) < 0)
			continue;
		if (!any)
			out_array_start("banks");
		any = true;
		out_elem_start();
		out_attr_u(b, RCLINK_A_BANK_ID, "bank", 8);
		out_attr_u(b, RCLINK_A_BANK_TC, "tc", 8);
		out_attr_u(b, RCLINK_A_BANK_VC, "vc", 8);
		out_elem_end();
	}
	if (any)
		out_array_end();
}

/*
 * dev show -s in cbfc mode: a "cbfc" object with the update frame
 * counters, "flows" and "vcs" (text: a line of counters, then a line per
 * flow and per VC)
 */
static void dev_cbfc_stats(struct nlattr *attr)
{
	struct nlattr *cb[RCLINK_A_CBFC_STATS_MAX + 1];
	struct nlattr *pos;
	int rem;

	if (nla_parse_nested(cb, RCLINK_A_CBFC_STATS_MAX, attr, NULL) < 0)
		return;
	out_nest_start("cbfc");
	out_text_label("cbfc");
	out_attr_u(cb, RCLINK_A_CBFC_STATS_UPD_TX, "upd_tx", 64);
	out_attr_u(cb, RCLINK_A_CBFC_STATS_UPD_RX, "upd_rx", 64);
	out_attr_u(cb, RCLINK_A_CBFC_STATS_RECOVERED, "recovered", 64);
	out_attr_u(cb, RCLINK_A_CBFC_STATS_RESYNC, "resync", 64);
	out_attr_u(cb, RCLINK_A_CBFC_STATS_MAC_CTRL_DROP, "mac_ctrl_drop", 64);
	out_array_start("flows");
	nla_for_each_nested(pos, attr, rem)
		if (nla_type(pos) == RCLINK_A_CBFC_STATS_FLOW)
			dev_cbfc_flow(pos);
	out_array_end();
	out_array_start("vcs");
	nla_for_each_nested(pos, attr, rem)
		if (nla_type(pos) == RCLINK_A_CBFC_STATS_VC)
			dev_cbfc_vc(pos);
	out_array_end();
	out_nest_end();
}

/* enum rclink_hw_feature, bit n */
static const char *const hw_feature_names[] = {
	"type1", "type2", "gen2", "lite", "cbfc", "rnr_retry_cnt",
	"ack_timestamp", "bank_rr", "icrc_off", "cnp_merge", "nocnp",
};

/*
 * hw_disabled: what the driver disabled because the IP lacks a register
 * whose place rclink assumed.  JSON: an array of names; text: the names
 * comma separated, or "none".  An unknown bit shows as its number.
 */
static void dev_hw_disabled(struct nlattr **tb)
{
	uint32_t v, i;
	char num[16];
	bool first = true;

	if (!tb[RCLINK_A_DEV_HW_DISABLED])
		return;
	v = nla_get_u32(tb[RCLINK_A_DEV_HW_DISABLED]);
	if (opt_json) {
		json_key("hw_disabled");
		json_open('[');
	} else {
		text_pair_sep();
		fputs("hw_disabled ", stdout);
	}
	for (i = 0; i < 32; i++) {
		const char *name = num;

		if (!(v & (1U << i)))
			continue;
		if (i < ARRAY_SIZE(hw_feature_names))
			name = hw_feature_names[i];
		else
			snprintf(num, sizeof(num), "bit%u", i);
		if (opt_json) {
			json_sep();
			json_string(name);
		} else {
			printf("%s%s", first ? "" : ",", name);
		}
		first = false;
	}
	if (opt_json)
		json_close(']');
	else if (first)
		fputs("none", stdout);
}

static int dev_parse(struct nlattr **tb, void *arg)
{
	struct nlattr *st[RCLINK_A_DEV_STATS_MAX + 1];
	unsigned int i;
	bool forced;

	(void)arg;
	out_obj_start();
	if (tb[RCLINK_A_DEV_NAME])
		out_str("dev", nla_get_string(tb[RCLINK_A_DEV_NAME]));
	if (tb[RCLINK_A_DEV_HANDLE])
		out_str("handle", nla_get_string(tb[RCLINK_A_DEV_HANDLE]));
	out_attr_u(tb, RCLINK_A_DEV_QP_NUM, "qp_num", 32);
	out_attr_u(tb, RCLINK_A_DEV_PKT_LEN, "pkt_len", 32);
	out_attr_u(tb, RCLINK_A_DEV_OST, "ost", 32);
	out_attr_u(tb, RCLINK_A_DEV_EPSN_W, "epsn_w", 32);
	out_attr_u(tb, RCLINK_A_DEV_MAX_MSG, "max_msg", 32);
	out_attr_mac(tb, RCLINK_A_DEV_MAC, "mac");
	out_attr_ipv4(tb, RCLINK_A_DEV_IP, "ip");
	out_attr_u(tb, RCLINK_A_DEV_TTL, "ttl", 8);
	out_attr_u(tb, RCLINK_A_DEV_IP_ID, "ip_id", 16);
	out_attr_u(tb, RCLINK_A_DEV_TC, "tc", 8);
	out_attr_u(tb, RCLINK_A_DEV_ACK_TC, "ack_tc", 8);
	if (tb[RCLINK_A_DEV_FORMAT])
		out_str("format", name_of(format_names,
					  ARRAY_SIZE(format_names),
					  nla_get_u8(tb[RCLINK_A_DEV_FORMAT])));
	out_attr_u(tb, RCLINK_A_DEV_RETRY_TIMER, "retry_timer", 32);
	out_attr_u(tb, RCLINK_A_DEV_RETRY_CNT, "retry_cnt", 8);
	out_attr_u(tb, RCLINK_A_DEV_RNR_RETRY_CNT, "rnr_retry_cnt", 8);
	out_attr_bool(tb, RCLINK_A_DEV_ACK_TIMESTAMP, "ack_timestamp", "on", "off");
	out_attr_bool(tb, RCLINK_A_DEV_ICRC, "icrc", "on", "off");
	/*
	 * vlan: the VID; 0 (JSON) or "off" (text) untagged, "forced" (text)
	 * when CBFC tags the frames with VID 0 (JSON: vlan_forced true)
	 */
	forced = tb[RCLINK_A_DEV_VLAN_FORCED] &&
		 nla_get_u8(tb[RCLINK_A_DEV_VLAN_FORCED]);
	if (tb[RCLINK_A_DEV_VLAN_ID]) {
		if (!opt_json && !nla_get_u16(tb[RCLINK_A_DEV_VLAN_ID]))
			out_str("vlan", forced ? "forced" : "off");
		else
			out_attr_u(tb, RCLINK_A_DEV_VLAN_ID, "vlan", 16);
	}
	if (opt_json)
		out_attr_bool(tb, RCLINK_A_DEV_VLAN_FORCED, "vlan_forced", "yes",
			      "no");
	out_attr_u(tb, RCLINK_A_DEV_VLAN_PRI, "vlan_pri", 8);
	out_attr_u(tb, RCLINK_A_DEV_CC_WINDOW, "cc_window", 32);
	out_attr_bool(tb, RCLINK_A_DEV_BANK_RR, "bank_rr", "on", "off");
	out_attr_rate(tb, RCLINK_A_DEV_T2_RATE, "t2_rate");
	out_attr_bool(tb, RCLINK_A_DEV_CNP_MERGE, "cnp_merge", "on", "off");
	out_attr_u(tb, RCLINK_A_DEV_CNP_WINDOW_US, "cnp_window_us", 32);
	/* nocnp_us: the NOCNP period; 0 (JSON) or "off" (text) when off */
	if (tb[RCLINK_A_DEV_NOCNP_US]) {
		if (!opt_json && !nla_get_u32(tb[RCLINK_A_DEV_NOCNP_US]))
			out_str("nocnp_us", "off");
		else
			out_attr_u(tb, RCLINK_A_DEV_NOCNP_US, "nocnp_us", 32);
	}
	if (tb[RCLINK_A_DEV_FLOW_CONTROL])
		out_str("flow_control",
			name_of(fc_names, ARRAY_SIZE(fc_names),
				nla_get_u8(tb[RCLINK_A_DEV_FLOW_CONTROL])));
	dev_cbfc_settings(tb);
	dev_hw_disabled(tb);
	dev_banks();

	if (opt_stats && tb[RCLINK_A_DEV_STATS] &&
	    nla_parse_nested(st, RCLINK_A_DEV_STATS_MAX,
			     tb[RCLINK_A_DEV_STATS], NULL) >= 0) {
		out_nest_start("stats");
		for (i = 0; i < ARRAY_SIZE(dev_stat_names); i++)
			if (dev_stat_names[i])
				out_attr_u(st, i, dev_stat_names[i], 64);
		out_nest_end();
	}
	if (opt_stats && tb[RCLINK_A_DEV_CBFC_STATS])
		dev_cbfc_stats(tb[RCLINK_A_DEV_CBFC_STATS]);
	out_obj_end();
	return 0;
}

/* "dev NAME": the board's name attribute */
static void put_dev(struct nl_msg *msg, const char *name)
{
	if (nla_put_string(msg, RCLINK_A_DEV_NAME, name) < 0)
		put_fail();
}

static int cmd_dev_show(struct rcl_nl *nl, int argc, char **argv)
{
	const char *dev = NULL;
	struct nl_msg *msg;
	int ret;

	for (; argc > 0; argc--, argv++) {
		if (keyword(*argv, "dev"))
			dev = arg_value(&argc, &argv);
		else
			usage_error("dev show: unknown argument \"%s\"", *argv);
	}

	msg = rcl_msg_new(nl, RCLINK_CMD_DEV_GET, !dev);
	if (dev)
		put_dev(msg, dev);
	out_list_start();
	ret = rcl_request(nl, msg, dev_parse, NULL);
	out_list_end(!ret);
	return ret;
}

/* "cbfc_uf CLASS": the class's attribute */
static int parse_cbfc_uf_class(int *argc, char ***argv)
{
	const char *c;
	unsigned int i;

	if (*argc < 3)
		usage_error("\"cbfc_uf\" needs a class (type1, type2, type3 or ack) and a value");
	c = arg_value(argc, argv);
	for (i = 0; i < ARRAY_SIZE(cbfc_uf_classes); i++)
		if (keyword(c, cbfc_uf_classes[i].name))
			return cbfc_uf_classes[i].attr;
	usage_error("cbfc_uf: unknown class \"%s\" (type1, type2, type3 or ack)",
		    c);
}

/*
 * "bank N tc T": a nested bank attribute (the kernel checks the bank
 * against the board and, in cbfc mode, the VC of the tc)
 */
static int put_bank(struct nl_msg *msg, int *argc, char ***argv)
{
	struct nlattr *nest;
	uint64_t id, tc;

	if (*argc < 4)
		usage_error("\"bank\" needs a bank and \"tc N\"");
	id = parse_num("bank", arg_value(argc, argv), UINT8_MAX);
	(*argc)--;
	(*argv)++;
	if (!keyword(**argv, "tc"))
		usage_error("bank: \"%s\" is not \"tc\"", **argv);
	tc = parse_num("tc", arg_value(argc, argv), UINT8_MAX);
	nest = nla_nest_start(msg, RCLINK_A_DEV_BANK);
	if (!nest ||
	    nla_put_u8(msg, RCLINK_A_BANK_ID, id) < 0 ||
	    nla_put_u8(msg, RCLINK_A_BANK_TC, tc) < 0)
		return -1;
	nla_nest_end(msg, nest);
	return 0;
}

static int cmd_dev_set(struct rcl_nl *nl, int argc, char **argv)
{
	struct nl_msg *msg;
	const char *v;
	int err = 0;

	msg = rcl_msg_new(nl, RCLINK_CMD_DEV_SET, false);
	for (; argc > 0 && err >= 0; argc--, argv++) {
		const char *k = *argv;

		if (keyword(k, "dev")) {
			put_dev(msg, arg_value(&argc, &argv));
		} else if (keyword(k, "mac")) {
			uint8_t mac[6];

			v = arg_value(&argc, &argv);
			parse_mac(k, v, mac);
			err = nla_put(msg, RCLINK_A_DEV_MAC, sizeof(mac), mac);
		} else if (keyword(k, "ip")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_DEV_IP, parse_ipv4(k, v));
		} else if (keyword(k, "ttl")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_DEV_TTL,
					 parse_num(k, v, UINT8_MAX));
		} else if (keyword(k, "ip_id")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u16(msg, RCLINK_A_DEV_IP_ID,
					  parse_num(k, v, UINT16_MAX));
		} else if (keyword(k, "tc")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_DEV_TC,
					 parse_num(k, v, UINT8_MAX));
		} else if (keyword(k, "ack_tc")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_DEV_ACK_TC,
					 parse_num(k, v, UINT8_MAX));
		} else if (keyword(k, "format")) {
			v = arg_value(&argc, &argv);
			if (keyword(v, "std"))
				v = format_names[RCLINK_FORMAT_STANDARD];
			err = nla_put_u8(msg, RCLINK_A_DEV_FORMAT,
					 parse_name(k, v, format_names,
						    ARRAY_SIZE(format_names)));
		} else if (keyword(k, "retry_timer")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_DEV_RETRY_TIMER,
					  parse_num(k, v, UINT32_MAX));
		} else if (keyword(k, "retry_cnt")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_DEV_RETRY_CNT,
					 parse_num(k, v, UINT8_MAX));
		} else if (keyword(k, "rnr_retry_cnt")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_DEV_RNR_RETRY_CNT,
					 parse_num(k, v, UINT8_MAX));
		} else if (keyword(k, "ack_timestamp")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_DEV_ACK_TIMESTAMP,
					 parse_on_off(k, v));
		} else if (keyword(k, "icrc")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_DEV_ICRC,
					 parse_on_off(k, v));
		} else if (keyword(k, "vlan")) {
			/* the kernel checks the range: 1..4094 */
			v = arg_value(&argc, &argv);
			err = nla_put_u16(msg, RCLINK_A_DEV_VLAN_ID,
					  keyword(v, "off") ? 0 :
					  parse_num(k, v, UINT16_MAX));
		} else if (keyword(k, "vlan_pri")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_DEV_VLAN_PRI,
					 parse_num(k, v, UINT8_MAX));
		} else if (keyword(k, "bank_rr")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_DEV_BANK_RR, parse_on_off(k, v));
		} else if (keyword(k, "cc_window")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_DEV_CC_WINDOW,
					  parse_num(k, v, UINT32_MAX));
		} else if (keyword(k, "t2_rate")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u64(msg, RCLINK_A_DEV_T2_RATE,
					  keyword(v, "off") ? 0 :
					  parse_rate(k, v));
		} else if (keyword(k, "cnp_merge")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_DEV_CNP_MERGE,
					 parse_on_off(k, v));
		} else if (keyword(k, "cnp_window")) {
			/* the kernel checks the range: 0..65535 */
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_DEV_CNP_WINDOW_US,
					  parse_num(k, v, UINT32_MAX));
		} else if (keyword(k, "nocnp")) {
			/* the kernel checks the range: 1..256, 0 is off */
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_DEV_NOCNP_US,
					  keyword(v, "off") ? 0 :
					  parse_num(k, v, UINT32_MAX));
		} else if (keyword(k, "cbfc_size")) {
			/* the kernel checks it: 32, 64, 128, 256, 1024, 2048 */
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_DEV_CBFC_SIZE,
					  parse_num(k, v, UINT32_MAX));
		} else if (keyword(k, "cbfc_limit")) {
			/* the kernel checks the range: 1..65535 */
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_DEV_CBFC_LIMIT,
					  parse_num(k, v, UINT32_MAX));
		} else if (keyword(k, "cbfc_uf")) {
			/* a class, then its limit (the kernel checks 1..7) */
			int attr = parse_cbfc_uf_class(&argc, &argv);

			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, attr, parse_num(k, v, UINT8_MAX));
		} else if (keyword(k, "cbfc_dyn")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_DEV_CBFC_DYN,
					 parse_on_off(k, v));
		} else if (keyword(k, "vc_status")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_DEV_VC_STATUS,
					 parse_num(k, v, UINT8_MAX));
		} else if (keyword(k, "bank")) {
			err = put_bank(msg, &argc, &argv);
		} else {
			usage_error("dev set: unknown argument \"%s\"", k);
		}
	}
	if (err < 0)
		put_fail();
	return rcl_request(nl, msg, NULL, NULL);
}

static int cmd_dev(struct rcl_nl *nl, int argc, char **argv)
{
	if (argc == 0 || keyword(*argv, "show") || keyword(*argv, "list"))
		return cmd_dev_show(nl, argc ? argc - 1 : 0, argv + 1);
	if (keyword(*argv, "set"))
		return cmd_dev_set(nl, argc - 1, argv + 1);
	if (keyword(*argv, "help")) {
		usage(stdout);
		return 0;
	}
	usage_error("dev: unknown command \"%s\"", *argv);
}

/* ---- qp ---------------------------------------------------------------------- */

static const struct {
	int attr;
	const char *name;
	int width;
} qp_stat_names[] = {
	{ RCLINK_A_STATS_TX_MSGS, "tx_msgs", 64 },
	{ RCLINK_A_STATS_TX_BYTES, "tx_bytes", 64 },
	{ RCLINK_A_STATS_TX_FLUSHED, "tx_flushed", 64 },
	{ RCLINK_A_STATS_RX_MSGS, "rx_msgs", 64 },
	{ RCLINK_A_STATS_RX_BYTES, "rx_bytes", 64 },
	{ RCLINK_A_STATS_RX_FLUSHED, "rx_flushed", 64 },
	{ RCLINK_A_STATS_FATAL, "fatal", 64 },
	{ 0, NULL, 0 },		/* text: a new line for the board's counters */
	{ RCLINK_A_STATS_TX_PKTS, "tx_pkts", 64 },
	{ RCLINK_A_STATS_TX_PKT_BYTES, "tx_pkt_bytes", 64 },
	{ RCLINK_A_STATS_RX_PKTS, "rx_pkts", 64 },
	{ RCLINK_A_STATS_RX_PKT_BYTES, "rx_pkt_bytes", 64 },
	{ RCLINK_A_STATS_RETX_PKTS, "retx_pkts", 64 },
	{ RCLINK_A_STATS_NAK_RX, "nak_rx", 64 },
	{ RCLINK_A_STATS_NAK_TX, "nak_tx", 64 },
	{ RCLINK_A_STATS_RNR_RX, "rnr_rx", 64 },
	{ RCLINK_A_STATS_RNR_TX, "rnr_tx", 64 },
	{ RCLINK_A_STATS_TIMEOUTS, "timeouts", 64 },
	{ RCLINK_A_STATS_RETRY_TMO, "retry_tmo", 64 },
	{ RCLINK_A_STATS_RX_DUP, "rx_dup", 64 },
	{ RCLINK_A_STATS_RX_OOS, "rx_oos", 64 },
	{ RCLINK_A_STATS_ACK_TX, "ack_tx", 64 },
	{ RCLINK_A_STATS_ACK_RX, "ack_rx", 64 },
	{ 0, NULL, 0 },
	{ RCLINK_A_STATS_RTT_SAMPLES, "rtt_samples", 64 },
	{ RCLINK_A_STATS_RTT_LAST_US, "rtt_last_us", 32 },
	{ RCLINK_A_STATS_RTT_MIN_US, "rtt_min_us", 32 },
	{ RCLINK_A_STATS_RTT_MAX_US, "rtt_max_us", 32 },
	{ RCLINK_A_STATS_CC_ACC, "cc_acc", 64 },
	{ RCLINK_A_STATS_CC_MASK, "cc_mask", 64 },
	{ 0, NULL, 0 },		/* ECN/CNP: the board's, then the driver's */
	{ RCLINK_A_STATS_ECN_RX, "ecn_rx", 64 },
	{ RCLINK_A_STATS_CNP_RX, "cnp_rx", 64 },
	{ RCLINK_A_STATS_CNP, "cnp", 64 },
	{ RCLINK_A_STATS_NOCNP_REPORTS, "nocnp_reports", 64 },
	{ RCLINK_A_STATS_NOCNP_BYTES, "nocnp_bytes", 64 },
	{ 0, NULL, 0 },		/* the congestion-control loop (cc_algorithm) */
	{ RCLINK_A_STATS_CC_SPEED, "cc_speed", 32 },
	{ RCLINK_A_STATS_CC_ALPHA, "cc_alpha", 32 },
	{ RCLINK_A_STATS_CC_CUTS, "cc_cuts", 64 },
	{ RCLINK_A_STATS_CC_RAISES, "cc_raises", 64 },
};

static int qp_parse(struct nlattr **tb, void *arg)
{
	struct nlattr *st[RCLINK_A_STATS_MAX + 1];
	unsigned int i;

	(void)arg;
	out_obj_start();
	if (tb[RCLINK_A_QP_DEV_NAME])
		out_str("dev", nla_get_string(tb[RCLINK_A_QP_DEV_NAME]));
	out_attr_u(tb, RCLINK_A_QP_QPN, "qpn", 32);
	out_attr_u(tb, RCLINK_A_QP_DQPN, "dqpn", 32);
	out_attr_ipv4(tb, RCLINK_A_QP_DIP, "dip");
	out_attr_mac(tb, RCLINK_A_QP_DMAC, "dmac");
	out_attr_u(tb, RCLINK_A_QP_SPORT, "sport", 16);
	out_attr_u(tb, RCLINK_A_QP_PKEY, "pkey", 8);
	out_attr_u(tb, RCLINK_A_QP_RX_PKEY, "rx_pkey", 8);
	out_attr_u(tb, RCLINK_A_QP_SPEED, "speed", 32);
	out_attr_rate(tb, RCLINK_A_QP_RATE, "rate");
	if (tb[RCLINK_A_QP_STATE])
		out_str("state", name_of(state_names, ARRAY_SIZE(state_names),
					 nla_get_u8(tb[RCLINK_A_QP_STATE])));
	out_attr_bool(tb, RCLINK_A_QP_BOUND, "bound", "yes", "no");
	out_attr_u(tb, RCLINK_A_QP_OWNER_UID, "owner", 32);
	out_attr_u(tb, RCLINK_A_QP_OWNER_NETNS, "netns", 64);
	out_attr_u(tb, RCLINK_A_QP_SQ_PSN, "sq_psn", 32);
	out_attr_u(tb, RCLINK_A_QP_RQ_PSN, "rq_psn", 32);

	if (opt_stats && tb[RCLINK_A_QP_STATS] &&
	    nla_parse_nested(st, RCLINK_A_STATS_MAX, tb[RCLINK_A_QP_STATS],
			     NULL) >= 0) {
		out_nest_start("stats");
		for (i = 0; i < ARRAY_SIZE(qp_stat_names); i++) {
			if (!qp_stat_names[i].name)
				out_text_break();
			else
				out_attr_u(st, qp_stat_names[i].attr,
					   qp_stat_names[i].name,
					   qp_stat_names[i].width);
		}
		out_nest_end();
	}
	out_obj_end();
	return 0;
}

/* The fields of qp add / qp set; "dev" and "qpn" included */
static void qp_args(struct nl_msg *msg, const char *cmd, bool set, int argc,
		    char **argv)
{
	uint8_t mac[6];
	const char *v;
	int err = 0;

	for (; argc > 0 && err >= 0; argc--, argv++) {
		const char *k = *argv;

		if (keyword(k, "dev")) {
			put_dev(msg, arg_value(&argc, &argv));
		} else if (keyword(k, "qpn")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_QP_QPN,
					  parse_num(k, v, UINT32_MAX));
		} else if (keyword(k, "dqpn")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_QP_DQPN,
					  parse_num(k, v, UINT32_MAX));
		} else if (keyword(k, "dip")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_QP_DIP, parse_ipv4(k, v));
		} else if (keyword(k, "dmac")) {
			v = arg_value(&argc, &argv);
			parse_mac(k, v, mac);
			err = nla_put(msg, RCLINK_A_QP_DMAC, sizeof(mac), mac);
		} else if (keyword(k, "sport")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u16(msg, RCLINK_A_QP_SPORT,
					  parse_num(k, v, UINT16_MAX));
		} else if (keyword(k, "pkey")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_QP_PKEY,
					 parse_num(k, v, UINT8_MAX));
		} else if (keyword(k, "rx_pkey")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_QP_RX_PKEY,
					 parse_num(k, v, UINT8_MAX));
		} else if (keyword(k, "sq_psn")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_QP_SQ_PSN,
					  parse_num(k, v, UINT32_MAX));
		} else if (keyword(k, "rq_psn")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_QP_RQ_PSN,
					  parse_num(k, v, UINT32_MAX));
		} else if (keyword(k, "speed")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_QP_SPEED,
					  parse_num(k, v, UINT32_MAX));
		} else if (keyword(k, "rate")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u64(msg, RCLINK_A_QP_RATE, parse_rate(k, v));
		} else if (!set && keyword(k, "owner")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_QP_OWNER_UID,
					  parse_user(k, v));
		} else if (!set && keyword(k, "netns")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_QP_OWNER_NETNS_FD,
					  open_netns(k, v));
		} else if (set && keyword(k, "state")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_QP_STATE,
					 parse_name(k, v, state_names,
						    ARRAY_SIZE(state_names)));
		} else {
			usage_error("qp %s: unknown argument \"%s\"", cmd, k);
		}
	}
	if (err < 0)
		put_fail();
}

static int cmd_qp_add(struct rcl_nl *nl, int argc, char **argv)
{
	struct nl_msg *msg = rcl_msg_new(nl, RCLINK_CMD_QP_NEW, false);

	qp_args(msg, "add", false, argc, argv);
	return rcl_request(nl, msg, NULL, NULL);
}

static int cmd_qp_set(struct rcl_nl *nl, int argc, char **argv)
{
	struct nl_msg *msg = rcl_msg_new(nl, RCLINK_CMD_QP_SET, false);

	qp_args(msg, "set", true, argc, argv);
	return rcl_request(nl, msg, NULL, NULL);
}

/* "dev NAME qpn N" of show and del */
static void qp_id_args(const char *cmd, int argc, char **argv,
		       const char **dev, const char **qpn)
{
	for (; argc > 0; argc--, argv++) {
		if (keyword(*argv, "dev"))
			*dev = arg_value(&argc, &argv);
		else if (keyword(*argv, "qpn"))
			*qpn = arg_value(&argc, &argv);
		else
			usage_error("qp %s: unknown argument \"%s\"", cmd,
				    *argv);
	}
}

static int cmd_qp_show(struct rcl_nl *nl, int argc, char **argv)
{
	const char *dev = NULL, *qpn = NULL;
	struct nl_msg *msg;
	int ret;

	qp_id_args("show", argc, argv, &dev, &qpn);
	if (qpn && !dev)
		usage_error("qp show: qpn needs dev");

	msg = rcl_msg_new(nl, RCLINK_CMD_QP_GET, !qpn);
	if (dev)
		put_dev(msg, dev);
	if (qpn && nla_put_u32(msg, RCLINK_A_QP_QPN,
			       parse_num("qpn", qpn, UINT32_MAX)) < 0)
		put_fail();
	out_list_start();
	ret = rcl_request(nl, msg, qp_parse, NULL);
	out_list_end(!ret);
	return ret;
}

static int cmd_qp_del(struct rcl_nl *nl, int argc, char **argv)
{
	const char *dev = NULL, *qpn = NULL;
	struct nl_msg *msg;

	qp_id_args("del", argc, argv, &dev, &qpn);
	msg = rcl_msg_new(nl, RCLINK_CMD_QP_DEL, false);
	if (dev)
		put_dev(msg, dev);
	if (qpn && nla_put_u32(msg, RCLINK_A_QP_QPN,
			       parse_num("qpn", qpn, UINT32_MAX)) < 0)
		put_fail();
	return rcl_request(nl, msg, NULL, NULL);
}

static int cmd_qp(struct rcl_nl *nl, int argc, char **argv)
{
	if (argc == 0 || keyword(*argv, "show") || keyword(*argv, "list"))
		return cmd_qp_show(nl, argc ? argc - 1 : 0, argv + 1);
	if (keyword(*argv, "add"))
		return cmd_qp_add(nl, argc - 1, argv + 1);
	if (keyword(*argv, "set"))
		return cmd_qp_set(nl, argc - 1, argv + 1);
	if (keyword(*argv, "del") || keyword(*argv, "delete"))
		return cmd_qp_del(nl, argc - 1, argv + 1);
	if (keyword(*argv, "help")) {
		usage(stdout);
		return 0;
	}
	usage_error("qp: unknown command \"%s\"", *argv);
}

/* ---- mcast ------------------------------------------------------------------- */

static int mcast_parse(struct nlattr **tb, void *arg)
{
	struct nlattr *st[RCLINK_A_STATS_MAX + 1];
	unsigned int i;

	(void)arg;
	out_obj_start();
	if (tb[RCLINK_A_MCAST_DEV_NAME])
		out_str("dev", nla_get_string(tb[RCLINK_A_MCAST_DEV_NAME]));
	out_attr_u(tb, RCLINK_A_MCAST_GROUP, "group", 8);
	out_attr_mac(tb, RCLINK_A_MCAST_DMAC, "mac");
	out_attr_bool(tb, RCLINK_A_MCAST_JOIN, "join", "on", "off");
	out_attr_bool(tb, RCLINK_A_MCAST_BOUND, "bound", "yes", "no");
	out_attr_u(tb, RCLINK_A_MCAST_OWNER_UID, "owner", 32);
	out_attr_u(tb, RCLINK_A_MCAST_OWNER_NETNS, "netns", 64);
	if (opt_stats && tb[RCLINK_A_MCAST_STATS] &&
	    nla_parse_nested(st, RCLINK_A_STATS_MAX, tb[RCLINK_A_MCAST_STATS],
			     NULL) >= 0) {
		out_nest_start("stats");
		/* the driver's counters, as for a QP */
		for (i = 0; i < ARRAY_SIZE(qp_stat_names) &&
		     qp_stat_names[i].name; i++)
			out_attr_u(st, qp_stat_names[i].attr,
				   qp_stat_names[i].name,
				   qp_stat_names[i].width);
		out_nest_end();
	}
	out_obj_end();
	return 0;
}

static int cmd_mcast_show(struct rcl_nl *nl, int argc, char **argv)
{
	const char *dev = NULL, *group = NULL;
	struct nl_msg *msg;
	int ret;

	for (; argc > 0; argc--, argv++) {
		if (keyword(*argv, "dev"))
			dev = arg_value(&argc, &argv);
		else if (keyword(*argv, "group"))
			group = arg_value(&argc, &argv);
		else
			usage_error("mcast show: unknown argument \"%s\"",
				    *argv);
	}
	if (group && !dev)
		usage_error("mcast show: group needs dev");
	msg = rcl_msg_new(nl, RCLINK_CMD_MCAST_GET, !group);
	if (dev)
		put_dev(msg, dev);
	if (group && nla_put_u8(msg, RCLINK_A_MCAST_GROUP,
				parse_num("group", group, UINT8_MAX)) < 0)
		put_fail();
	out_list_start();
	ret = rcl_request(nl, msg, mcast_parse, NULL);
	out_list_end(!ret);
	return ret;
}

static int cmd_mcast_set(struct rcl_nl *nl, int argc, char **argv)
{
	struct nl_msg *msg = rcl_msg_new(nl, RCLINK_CMD_MCAST_SET, false);
	uint8_t mac[6];
	const char *k, *v;
	int err = 0;

	for (; argc > 0 && err >= 0; argc--, argv++) {
		k = *argv;
		if (keyword(k, "dev")) {
			put_dev(msg, arg_value(&argc, &argv));
		} else if (keyword(k, "group")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_MCAST_GROUP,
					 parse_num(k, v, UINT8_MAX));
		} else if (keyword(k, "mac")) {
			v = arg_value(&argc, &argv);
			parse_mac(k, v, mac);
			err = nla_put(msg, RCLINK_A_MCAST_DMAC, 6, mac);
		} else if (keyword(k, "join")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u8(msg, RCLINK_A_MCAST_JOIN, parse_on_off(k, v));
		} else if (keyword(k, "owner")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_MCAST_OWNER_UID,
					  parse_user(k, v));
		} else if (keyword(k, "netns")) {
			v = arg_value(&argc, &argv);
			err = nla_put_u32(msg, RCLINK_A_MCAST_OWNER_NETNS_FD,
					  open_netns(k, v));
		} else {
			usage_error("mcast set: unknown argument \"%s\"", k);
		}
	}
	if (err < 0)
		put_fail();
	return rcl_request(nl, msg, NULL, NULL);
}

static int cmd_mcast(struct rcl_nl *nl, int argc, char **argv)
{
	if (argc == 0 || keyword(*argv, "show") || keyword(*argv, "list"))
		return cmd_mcast_show(nl, argc ? argc - 1 : 0, argv + 1);
	if (keyword(*argv, "set"))
		return cmd_mcast_set(nl, argc - 1, argv + 1);
	if (keyword(*argv, "help")) {
		usage(stdout);
		return 0;
	}
	usage_error("mcast: unknown command \"%s\"", *argv);
}

/* ---- mr: registrations of RDMA WRITE and READ ---------------------------------- */

static int mr_parse(struct nlattr **tb, void *arg)
{
	bool wr = !!tb[RCLINK_A_MR_REMOTE_WRITE];
	bool rd = !!tb[RCLINK_A_MR_REMOTE_READ];

	(void)arg;
	out_obj_start();
	if (tb[RCLINK_A_MR_DEV_NAME])
		out_str("dev", nla_get_string(tb[RCLINK_A_MR_DEV_NAME]));
	if (tb[RCLINK_A_MR_KEY]) {
		if (opt_json) {
			out_u64("key", nla_get_u32(tb[RCLINK_A_MR_KEY]));
		} else {
			char k[16];

			snprintf(k, sizeof(k), "0x%x",
				 nla_get_u32(tb[RCLINK_A_MR_KEY]));
			out_str("key", k);
		}
	}
	out_attr_u(tb, RCLINK_A_MR_CTX, "ctx", 32);
	out_attr_u(tb, RCLINK_A_MR_QPN, "qpn", 32);
	out_attr_u(tb, RCLINK_A_MR_PID, "pid", 32);
	out_attr_u(tb, RCLINK_A_MR_OFFSET, "offset", 64);
	out_attr_u(tb, RCLINK_A_MR_LENGTH, "length", 64);
	if (opt_json) {
		out_bool("remote_write", wr, "", "");
		out_bool("remote_read", rd, "", "");
		out_bool("user", !!tb[RCLINK_A_MR_USER], "", "");
		out_bool("busy", !!tb[RCLINK_A_MR_BUSY], "", "");
	} else {
		out_str("access", wr && rd ? "write,read" : wr ? "write" :
				  rd ? "read" : "none");
		if (tb[RCLINK_A_MR_USER])
			out_str("memory", "user");
		if (tb[RCLINK_A_MR_BUSY])
			out_str("state", "busy");
	}
	out_attr_u(tb, RCLINK_A_MR_PAGES, "pages", 32);
	out_obj_end();
	return 0;
}

/*
 * "OBJ show [dev NAME [KEY N]]": a dump, or with dev and KEY the one
 * object whose u32 attribute @key_attr is N
 */
static int cmd_show_keyed(struct rcl_nl *nl, int argc, char **argv,
			  const char *obj, uint8_t cmd, const char *key_word,
			  int key_attr, int (*parse)(struct nlattr **, void *))
{
	const char *dev = NULL, *key = NULL;
	struct nl_msg *msg;
	int ret;

	for (; argc > 0; argc--, argv++) {
		if (keyword(*argv, "dev"))
			dev = arg_value(&argc, &argv);
		else if (keyword(*argv, key_word))
			key = arg_value(&argc, &argv);
		else
			usage_error("%s show: unknown argument \"%s\"", obj,
				    *argv);
	}
	if (key && !dev)
		usage_error("%s show: %s needs dev", obj, key_word);
	msg = rcl_msg_new(nl, cmd, !key);
	if (dev)
		put_dev(msg, dev);
	if (key && nla_put_u32(msg, key_attr,
			       parse_num(key_word, key, UINT32_MAX)) < 0)
		put_fail();
	out_list_start();
	ret = rcl_request(nl, msg, parse, NULL);
	out_list_end(!ret);
	return ret;
}

/* An object with "show" only: mr, ctx */
static int cmd_show_only(struct rcl_nl *nl, int argc, char **argv,
			 const char *obj, uint8_t cmd, const char *key_word,
			 int key_attr, int (*parse)(struct nlattr **, void *))
{
	if (argc == 0 || keyword(*argv, "show") || keyword(*argv, "list"))
		return cmd_show_keyed(nl, argc ? argc - 1 : 0, argv + 1, obj,
				      cmd, key_word, key_attr, parse);
	if (keyword(*argv, "help")) {
		usage(stdout);
		return 0;
	}
	usage_error("%s: unknown command \"%s\"", obj, *argv);
}

/* ---- ctx: user contexts ---------------------------------------------------------- */

/*
 * Every attribute @type of the reply (a multi-attr u32): JSON an array of
 * numbers, text "key a,b,c" (nothing when there is none)
 */
static void out_u32_list(int type, const char *key)
{
	struct genlmsghdr *gnlh;
	struct nlattr *pos;
	bool any = false;
	int rem;

	if (!cur_nlh)
		return;
	gnlh = nlmsg_data(cur_nlh);
	if (opt_json)
		out_array_start(key);
	nla_for_each_attr(pos, genlmsg_attrdata(gnlh, 0),
			  genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(pos) != type || nla_len(pos) != sizeof(uint32_t))
			continue;
		if (opt_json) {
			json_sep();
		} else if (!any) {
			text_pair_sep();
			printf("%s ", key);
		} else {
			putchar(',');
		}
		printf("%u", nla_get_u32(pos));
		any = true;
	}
	if (opt_json)
		out_array_end();
}

static const char *const ctx_states[] = {
	[RCLINK_CTX_STATE_RUNNING] = "running",
	[RCLINK_CTX_STATE_ERROR] = "error",
	[RCLINK_CTX_STATE_DEAD] = "dead",
};

static int ctx_parse(struct nlattr **tb, void *arg)
{
	uint32_t st;

	(void)arg;
	out_obj_start();
	if (tb[RCLINK_A_CTX_DEV_NAME])
		out_str("dev", nla_get_string(tb[RCLINK_A_CTX_DEV_NAME]));
	out_attr_u(tb, RCLINK_A_CTX_ID, "id", 32);
	out_attr_u(tb, RCLINK_A_CTX_PID, "pid", 32);
	if (tb[RCLINK_A_CTX_STATE]) {
		st = nla_get_u32(tb[RCLINK_A_CTX_STATE]);
		out_str("state", st < ARRAY_SIZE(ctx_states) && ctx_states[st] ?
				 ctx_states[st] : "unknown");
	}
	out_attr_u(tb, RCLINK_A_CTX_CAUSE, "cause", 32);
	out_attr_u(tb, RCLINK_A_CTX_ERR_INFO, "err_info", 64);
	out_u32_list(RCLINK_A_CTX_QPN, "qpns");
	out_u32_list(RCLINK_A_CTX_GROUP, "groups");
	out_text_break();
	out_attr_u(tb, RCLINK_A_CTX_SQ_ENTRIES, "sq_entries", 32);
	out_attr_u(tb, RCLINK_A_CTX_RQ_ENTRIES, "rq_entries", 32);
	out_attr_u(tb, RCLINK_A_CTX_CQ_ENTRIES, "cq_entries", 32);
	out_attr_u(tb, RCLINK_A_CTX_AREA_SIZE, "area_size", 32);
	out_attr_u(tb, RCLINK_A_CTX_OST_USED, "ost_used", 32);
	out_attr_u(tb, RCLINK_A_CTX_OST_MAX, "ost_max", 32);
	out_text_break();
	out_attr_u(tb, RCLINK_A_CTX_EVENTS, "events", 64);
	out_attr_u(tb, RCLINK_A_CTX_RX_NOBUF, "rx_nobuf", 64);
	out_attr_u(tb, RCLINK_A_CTX_NOT_OWNER, "not_owner", 64);
	out_obj_end();
	return 0;
}

/* ---- monitor ------------------------------------------------------------------- */

static int monitor_event(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[RCLINK_A_QP_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	const char *event;

	(void)arg;
	switch (gnlh->cmd) {
	case RCLINK_CMD_QP_FATAL_NTF:
		event = "qp-fatal";
		break;
	case RCLINK_CMD_QP_READY_NTF:
		event = "qp-ready";
		break;
	case RCLINK_CMD_QP_CNP_NTF:
		event = "qp-cnp";
		break;
	case RCLINK_CMD_QP_RETRY_TMO_NTF:
		event = "qp-retry-tmo";
		break;
	default:
		return NL_SKIP;
	}
	if (genlmsg_parse(nlh, 0, tb, RCLINK_A_QP_MAX, NULL) < 0)
		return NL_SKIP;

	if (opt_json) {
		/* one object per line */
		opt_pretty = false;
		out_obj_start();
		out_str("event", event);
	} else {
		fputs(event, stdout);
		out.text_first = false;
	}
	if (tb[RCLINK_A_QP_DEV_NAME])
		out_str("dev", nla_get_string(tb[RCLINK_A_QP_DEV_NAME]));
	out_attr_u(tb, RCLINK_A_QP_QPN, "qpn", 32);
	out_attr_u(tb, RCLINK_A_QP_SQ_PSN, "sq_psn", 32);
	if (opt_json) {
		out_obj_end();
		putchar('\n');
	} else {
		putchar('\n');
	}
	fflush(stdout);
	return NL_OK;
}

static int cmd_monitor(struct rcl_nl *nl, int argc, char **argv)
{
	struct nl_cb *cb;
	int grp, err;

	if (argc > 0 && keyword(*argv, "help")) {
		usage(stdout);
		return 0;
	}
	if (argc > 0)
		usage_error("monitor: unknown argument \"%s\"", *argv);

	if (rcl_open(nl))
		return 1;
	grp = genl_ctrl_resolve_grp(nl->sock, rcl_family, RCLINK_MCGRP_EVENTS);
	if (grp < 0) {
		error_msg("multicast group %s of %s not found: %s",
			  RCLINK_MCGRP_EVENTS, rcl_family, nl_geterror(grp));
		return 1;
	}
	err = nl_socket_add_membership(nl->sock, grp);
	if (err < 0) {
		error_msg("cannot join the %s group: %s", RCLINK_MCGRP_EVENTS,
			  nl_geterror(err));
		return 1;
	}
	nl_socket_disable_seq_check(nl->sock);

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		error_msg("out of memory");
		return 1;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, monitor_event, NULL);
	for (;;) {
		err = nl_recvmsgs(nl->sock, cb);
		/* an overrun loses events: say so and go on */
		if (err == -NLE_NOMEM) {
			error_msg("netlink: events lost (receive buffer overrun)");
			continue;
		}
		if (err < 0 && err != -NLE_INTR && err != -NLE_AGAIN)
			break;
	}
	nl_cb_put(cb);
	error_msg("netlink: %s", nl_geterror(err));
	return 1;
}

/* ---- main ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
	struct rcl_nl nl = { 0 };
	const char *obj;
	int ret, i;

	argc--;
	argv++;
	while (argc > 0 && argv[0][0] == '-' && argv[0][1]) {
		const char *o = argv[0];

		if (!strcmp(o, "--json")) {
			opt_json = true;
		} else if (!strcmp(o, "--pretty")) {
			opt_pretty = true;
		} else if (!strcmp(o, "--stats") ||
			   !strcmp(o, "--statistics")) {
			opt_stats = true;
		} else if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(o, "-V") || !strcmp(o, "--version")) {
			printf("rclink utility, rclink-%s\n", RCLINK_VERSION);
			return 0;
		} else if (o[1] == '-') {
			usage(stderr);
			usage_error("unknown option \"%s\"", o);
		} else {
			for (i = 1; o[i]; i++) {
				switch (o[i]) {
				case 'j':
					opt_json = true;
					break;
				case 'p':
					opt_pretty = true;
					break;
				case 's':
					opt_stats = true;
					break;
				case 'V':
					printf("rclink utility, rclink-%s\n",
					       RCLINK_VERSION);
					return 0;
				case 'h':
					usage(stdout);
					return 0;
				default:
					usage(stderr);
					usage_error("unknown option \"-%c\"",
						    o[i]);
				}
			}
		}
		argc--;
		argv++;
	}
	/* -p alone pretty-prints JSON */
	if (opt_pretty)
		opt_json = true;

	if (argc == 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
	obj = argv[0];
	argc--;
	argv++;
	if (keyword(obj, "help")) {
		usage(stdout);
		return 0;
	}
	if (!keyword(obj, "dev") && !keyword(obj, "qp") &&
	    !keyword(obj, "mcast") && !keyword(obj, "mr") &&
	    !keyword(obj, "ctx") && !keyword(obj, "monitor")) {
		usage(stderr);
		usage_error("unknown object \"%s\"", obj);
	}

	if (keyword(obj, "dev"))
		ret = cmd_dev(&nl, argc, argv);
	else if (keyword(obj, "qp"))
		ret = cmd_qp(&nl, argc, argv);
	else if (keyword(obj, "mcast"))
		ret = cmd_mcast(&nl, argc, argv);
	else if (keyword(obj, "mr"))
		ret = cmd_show_only(&nl, argc, argv, "mr", RCLINK_CMD_MR_GET,
				    "key", RCLINK_A_MR_KEY, mr_parse);
	else if (keyword(obj, "ctx"))
		ret = cmd_show_only(&nl, argc, argv, "ctx", RCLINK_CMD_CTX_GET,
				    "id", RCLINK_A_CTX_ID, ctx_parse);
	else
		ret = cmd_monitor(&nl, argc, argv);
	rcl_close(&nl);
	return ret;
}
