// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * vdiff: random verbs programs for differential testing.
 *
 *   vdiff print [-w] [-c] SEED [KEEP]
 *	the program of SEED, limited to the steps in the hex mask KEEP
 *   vdiff run [-w] [-c] [-q MS] [-k KEEP] [-j JOBS] DEV_A[:GID] DEV_B[:GID] SEED [COUNT]
 *	run COUNT programs from SEED between a QP on DEV_A and one on
 *	DEV_B (the same device for loopback), and print their traces in
 *	seed order; JOBS processes run a share of the seeds each
 *
 * -w makes RC programs whose chains may hold ATOMIC_WRITE, posted with
 * ibv_wr_*() (VD_GEN_ATOMIC_WRITE): rdma_rxe has it from 6.2.  -c fails
 * a program's setup where a side has no completion counters, so that a
 * run meant to check them cannot pass without them.
 *
 * GID is the GID index each side's traffic uses (default 1, the IPv4
 * address).  MS is how long a CQ must stay quiet once errors are about
 * (default 50).  tests/guest/t-diff.sh runs the same seeds on rdma_rxe
 * and on rxc and compares the traces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "vdiff.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: vdiff print [-w] [-c] SEED [KEEP]\n"
		"       vdiff run [-w] [-c] [-q MS] [-k KEEP] [-j JOBS] DEV_A[:GID] DEV_B[:GID] SEED [COUNT]\n");
	exit(2);
}

static unsigned long long number(const char *s, int base)
{
	char *end;
	unsigned long long v = strtoull(s, &end, base);

	if (!*s || *end)
		usage();
	return v;
}

static void parse_end(char *arg, struct vd_end *e)
{
	char *colon = strchr(arg, ':');

	e->dev = arg;
	e->gid_index = 1;
	if (colon) {
		*colon = 0;
		e->gid_index = (int)number(colon + 1, 10);
	}
}

struct batch {
	struct vd_end a, b;
	unsigned int quiet;
	uint32_t keep;
	unsigned int gen_flags;
	bool need_cntrs;
};

/* Programs @first .. @first + @count - 1, traces to @out; 0 if all ran. */
static int run_seeds(const struct batch *bt, unsigned long long first,
		     unsigned long long count, FILE *out)
{
	unsigned long long i;
	struct vd_prog p;
	int rc = 0;

	for (i = 0; i < count; i++) {
		vd_generate(&p, first + i, bt->gen_flags);
		if (vd_run(&p, bt->keep, &bt->a, &bt->b, bt->quiet,
			   bt->need_cntrs, out))
			rc = 1;
		fflush(out);
	}
	return rc;
}

/*
 * @jobs children run consecutive shares of the seeds into files of their
 * own, which are then copied out in order: the trace reads as if one
 * process had run them all.
 */
static int run_jobs(const struct batch *bt, unsigned long long seed,
		    unsigned long long count, unsigned int jobs)
{
	unsigned long long share = (count + jobs - 1) / jobs, from;
	FILE *part[64];
	unsigned int j;
	int status, rc = 0;
	pid_t pid;
	char buf[65536];
	size_t n;

	for (j = 0; j < jobs; j++) {
		part[j] = tmpfile();
		if (!part[j]) {
			perror("vdiff: tmpfile");
			return 1;
		}
		from = seed + j * share;
		if (from >= seed + count)
			continue;
		pid = fork();
		if (pid < 0) {
			perror("vdiff: fork");
			return 1;
		}
		if (!pid)
			_exit(run_seeds(bt, from, from + share > seed + count ?
					seed + count - from : share, part[j]));
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			rc = 1;
	for (j = 0; j < jobs; j++) {
		rewind(part[j]);
		while ((n = fread(buf, 1, sizeof(buf), part[j])) > 0)
			fwrite(buf, 1, n, stdout);
		fclose(part[j]);
	}
	return rc;
}

static int cmd_run(int argc, char **argv)
{
	unsigned long long seed, count = 1;
	struct batch bt = { .quiet = 50, .keep = ~0u };
	unsigned int jobs = 1;
	int opt;

	while ((opt = getopt(argc, argv, "wcq:k:j:")) != -1) {
		if (opt == 'w')
			bt.gen_flags |= VD_GEN_ATOMIC_WRITE;
		else if (opt == 'c')
			bt.need_cntrs = true;
		else if (opt == 'q')
			bt.quiet = (unsigned int)number(optarg, 10);
		else if (opt == 'k')
			bt.keep = (uint32_t)number(optarg, 16);
		else if (opt == 'j')
			jobs = (unsigned int)number(optarg, 10);
		else
			usage();
	}
	if (!jobs || jobs > 64)
		usage();
	if (argc - optind < 3 || argc - optind > 4)
		usage();
	parse_end(argv[optind], &bt.a);
	parse_end(argv[optind + 1], &bt.b);
	seed = number(argv[optind + 2], 10);
	if (argc - optind == 4)
		count = number(argv[optind + 3], 10);
	if (jobs == 1)
		return run_seeds(&bt, seed, count, stdout);
	return run_jobs(&bt, seed, count, jobs);
}

static int cmd_print(int argc, char **argv)
{
	unsigned int gen_flags = 0;
	struct vd_prog p;
	int opt;

	/* -c changes no program: a run's options print its programs. */
	while ((opt = getopt(argc, argv, "wc")) != -1) {
		if (opt == 'w')
			gen_flags |= VD_GEN_ATOMIC_WRITE;
		else if (opt != 'c')
			usage();
	}
	if (argc - optind < 1 || argc - optind > 2)
		usage();
	vd_generate(&p, number(argv[optind], 10), gen_flags);
	vd_print(&p, argc - optind == 2 ?
		 (uint32_t)number(argv[optind + 1], 16) : ~0u, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "print"))
		return cmd_print(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	usage();
	return 2;
}
