// SPDX-License-Identifier: GPL-2.0
/*
 * rclink-insn: a QEMU TCG plugin that counts the instructions the guest
 * executes (every vCPU, kernel and user alike) and writes the running
 * total whenever the guest executes the marker instruction
 *
 *	xchg %bx,%bx		(66 87 db: a no-op nobody else emits)
 *
 * as a line "TAG TOTAL KERNEL" to the output file, TAG being the guest's
 * %rbx at the marker in hex, KERNEL the part of TOTAL executed at kernel
 * addresses (the upper half of the x86-64 address space).  Guest programs (tools/bench/rclink-bench.c, "mark")
 * load a tag into %rbx, execute the marker before and after a run of N
 * messages and read the two lines back: instructions per message =
 * (TOTAL_after - TOTAL_before) / N.
 *
 *   -plugin rclink-insn.so,out=FILE[,mode=tb|insn][,profile=PFILE[,user=1]]
 *
 * mode=tb (default) adds a translation block's instruction count when the
 * block starts; a block left early by an exception is counted whole (the
 * error is a few instructions per fault).  mode=insn adds one per
 * instruction: exact, and slower.
 *
 * profile=PFILE also counts the executions of each translation block at a
 * kernel address (a callback per block: slower), zeroes them at each
 * opening marker (even TAG) and appends "TAG VADDR INSNS" for every block
 * that ran to PFILE at each closing marker (odd TAG), for a per-function
 * profile of the window (tools/bench/bench-guest.sh resolves the
 * addresses with the guest's /proc/kallsyms).  With user=1 the blocks at
 * user addresses are counted too (resolve them with the symbols of the
 * program measured, its load address fixed by turning off ASLR).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

static const uint8_t marker[] = { 0x66, 0x87, 0xdb };

/* per vCPU: every instruction, and those at kernel addresses */
struct counts {
	uint64_t all;
	uint64_t kernel;
};
static struct qemu_plugin_scoreboard *counts;
static qemu_plugin_u64 count, count_kernel;
static bool per_insn;
static FILE *out;
static GMutex out_lock;
static struct qemu_plugin_register *rbx;	/* same handle on every vCPU */
static uint64_t markers;

/* profile: one record per kernel block start address */
struct tb_rec {
	uint64_t vaddr;
	uint64_t insns;		/* of the block */
	uint64_t hits;		/* executions since the last opening marker */
};
static FILE *prof;
static bool prof_user;		/* profile=: user blocks too */
static GHashTable *recs;	/* vaddr -> struct tb_rec */
static GMutex recs_lock;

static void on_tb_exec(unsigned int vcpu, void *udata)
{
	struct tb_rec *r = udata;

	(void)vcpu;
	__atomic_fetch_add(&r->hits, 1, __ATOMIC_RELAXED);
}

static struct tb_rec *tb_rec_get(uint64_t vaddr, uint64_t insns)
{
	struct tb_rec *r;

	g_mutex_lock(&recs_lock);
	r = g_hash_table_lookup(recs, &vaddr);
	if (!r || r->insns != insns) {
		/* a new block, or one translated again with another length */
		r = g_new0(struct tb_rec, 1);
		r->vaddr = vaddr;
		r->insns = insns;
		g_hash_table_replace(recs, &r->vaddr, r);
	}
	g_mutex_unlock(&recs_lock);
	return r;
}

static void prof_reset(gpointer key, gpointer value, gpointer data)
{
	struct tb_rec *r = value;

	(void)key;
	(void)data;
	__atomic_store_n(&r->hits, 0, __ATOMIC_RELAXED);
}

static void prof_dump(gpointer key, gpointer value, gpointer data)
{
	struct tb_rec *r = value;
	uint64_t h = __atomic_load_n(&r->hits, __ATOMIC_RELAXED);

	(void)key;
	if (h)
		fprintf(prof, "%" PRIx64 " %" PRIx64 " %" PRIu64 "\n",
			*(uint64_t *)data, r->vaddr, h * r->insns);
}

/* Zero the counts at an opening marker, write them at a closing one */
static void prof_marker(uint64_t tag)
{
	g_mutex_lock(&recs_lock);
	if (tag & 1) {
		g_hash_table_foreach(recs, prof_dump, &tag);
		fflush(prof);
	} else {
		g_hash_table_foreach(recs, prof_reset, NULL);
	}
	g_mutex_unlock(&recs_lock);
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	g_autoptr(GArray) regs = NULL;
	guint i;

	(void)id;
	(void)vcpu;
	if (rbx)
		return;
	regs = qemu_plugin_get_registers();
	for (i = 0; regs && i < regs->len; i++) {
		qemu_plugin_reg_descriptor *d =
			&g_array_index(regs, qemu_plugin_reg_descriptor, i);

		if (!strcmp(d->name, "rbx") || !strcmp(d->name, "ebx")) {
			rbx = d->handle;
			break;
		}
	}
}

static void on_marker(unsigned int vcpu, void *udata)
{
	g_autoptr(GByteArray) val = g_byte_array_new();
	uint64_t tag = 0, total, kernel;
	int n;

	(void)vcpu;
	(void)udata;
	total = qemu_plugin_u64_sum(count);
	kernel = qemu_plugin_u64_sum(count_kernel);
	if (rbx) {
		n = qemu_plugin_read_register(rbx, val);
		if (n > 0)
			memcpy(&tag, val->data, MIN((size_t)n, sizeof(tag)));
	}
	g_mutex_lock(&out_lock);
	markers++;
	if (out) {
		fprintf(out, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n", tag,
			total, kernel);
		fflush(out);
	}
	if (prof)
		prof_marker(tag);
	g_mutex_unlock(&out_lock);
}

static bool is_marker(const struct qemu_plugin_insn *insn)
{
	uint8_t b[sizeof(marker)];

	if (qemu_plugin_insn_size(insn) != sizeof(marker))
		return false;
	if (qemu_plugin_insn_data(insn, b, sizeof(b)) != sizeof(b))
		return false;
	return !memcmp(b, marker, sizeof(b));
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	bool kernel = qemu_plugin_tb_vaddr(tb) >> 63;

	(void)id;
	if (prof && (kernel || prof_user))
		qemu_plugin_register_vcpu_tb_exec_cb(
			tb, on_tb_exec, QEMU_PLUGIN_CB_NO_REGS,
			tb_rec_get(qemu_plugin_tb_vaddr(tb), n));
	if (!per_insn) {
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
			tb, QEMU_PLUGIN_INLINE_ADD_U64, count, n);
		if (kernel)
			qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(
				tb, QEMU_PLUGIN_INLINE_ADD_U64, count_kernel,
				n);
	}
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		if (per_insn) {
			qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
				insn, QEMU_PLUGIN_INLINE_ADD_U64, count, 1);
			if (kernel)
				qemu_plugin_register_vcpu_insn_exec_inline_per_vcpu(
					insn, QEMU_PLUGIN_INLINE_ADD_U64,
					count_kernel, 1);
		}
		if (is_marker(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, on_marker, QEMU_PLUGIN_CB_R_REGS, NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	char buf[128];

	(void)id;
	(void)p;
	snprintf(buf, sizeof(buf),
		 "rclink-insn: %" PRIu64 " guest instructions, %" PRIu64
		 " markers\n", qemu_plugin_u64_sum(count), markers);
	qemu_plugin_outs(buf);
	if (out)
		fclose(out);
	out = NULL;
	if (prof)
		fclose(prof);
	prof = NULL;
	qemu_plugin_scoreboard_free(counts);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL, *ppath = NULL;
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else if (!strncmp(argv[i], "profile=", 8)) {
			ppath = argv[i] + 8;
		} else if (!strcmp(argv[i], "user=1")) {
			prof_user = true;
		} else if (!strcmp(argv[i], "mode=tb")) {
			per_insn = false;
		} else if (!strcmp(argv[i], "mode=insn")) {
			per_insn = true;
		} else {
			fprintf(stderr, "rclink-insn: unknown argument %s\n",
				argv[i]);
			return -1;
		}
	}
	if (path) {
		out = fopen(path, "a");
		if (!out) {
			perror(path);
			return -1;
		}
	}
	if (ppath) {
		prof = fopen(ppath, "a");
		if (!prof) {
			perror(ppath);
			return -1;
		}
		recs = g_hash_table_new(g_int64_hash, g_int64_equal);
	}
	counts = qemu_plugin_scoreboard_new(sizeof(struct counts));
	count = qemu_plugin_scoreboard_u64_in_struct(counts, struct counts,
						     all);
	count_kernel = qemu_plugin_scoreboard_u64_in_struct(counts,
							    struct counts,
							    kernel);
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
