/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_report.c -- lib/report on a hand-built database: a recursive
 * procedure, an inlined frame, a loop, statements, a truncated path, a frame
 * in libc, an elided root, and elements from a future version.  Each case
 * builds a view with some options and checks the values of named contexts
 * (exact: the metric is a sample count) and the invariants every view keeps.
 * Built with ASan+UBSan where the toolchain runs them.  Ends with
 * "N passed, N failed".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csp_test.h"
#include "report/report.h"

/* _start > main {S line 3: 1; f @5 {L 11 {S 12: 2}; f @13 {S 12: 1; memcpy @14: 3}};
 *                g inlined @6 {S 20: 2}; truncated: 1} -- 10 samples in all. */
static const char db_xml[] =
    "<?xml version=\"1.0\"?>\n"
    "<csprof-experiment version=\"1.0\"><Header n=\"/bin/prog\"><Info/></Header>\n"
    "<Summary files=\"1\" files-read=\"1\" files-skipped=\"0\" threads=\"1\" processes=\"1\" "
    "samples=\"10\" samples-in-main=\"10\" main-percent=\"100\" rooted-samples=\"10\" "
    "rooted-percent=\"100\" unknown-samples=\"0\" cpu-seconds=\"0.1\" calls=\"6\" future=\"1\">"
    "<Inputs><Input path=\"m/a.cspm\" status=\"read\" pid=\"7\" tid=\"7\" samples=\"10\"/></Inputs>"
    "<Stats/><TopProcedures by=\"samples\" unit=\"samples\"/><TopPaths by=\"samples\" "
    "unit=\"samples\"/></Summary>\n"
    "<SecCallPathProfile i=\"0\" n=\"prog\"><SecHeader><MetricTable>\n"
    "<Metric i=\"0\" n=\"samples (I)\" t=\"inclusive\" event=\"samples\" unit=\"samples\" "
    "partner=\"1\"/>\n"
    "<Metric i=\"1\" n=\"samples (E)\" t=\"exclusive\" event=\"samples\" unit=\"samples\" "
    "partner=\"0\"/>\n"
    "<Metric i=\"2\" n=\"calls (sampled)\" t=\"exclusive\" event=\"calls\" unit=\"calls\"/>\n"
    "</MetricTable><LoadModuleTable><LoadModule i=\"0\" n=\"/bin/prog\" structure=\"file\"/>"
    "<LoadModule i=\"1\" n=\"/lib/libc.so.6\" structure=\"analyzed\"/></LoadModuleTable>\n"
    "<FileTable><File i=\"0\" n=\"/src/prog.c\"/></FileTable><ProcedureTable>\n"
    "<Procedure i=\"0\" n=\"_start\" lm=\"0\"/><Procedure i=\"1\" n=\"main\" lm=\"0\" f=\"0\" "
    "l=\"1\"/><Procedure i=\"2\" n=\"f\" lm=\"0\" f=\"0\" l=\"10\"/><Procedure i=\"3\" n=\"g\" "
    "lm=\"0\" f=\"0\" l=\"19\"/><Procedure i=\"4\" n=\"memcpy\" lm=\"1\"/>\n"
    "</ProcedureTable><FutureTable><Row i=\"0\"/></FutureTable></SecHeader>\n"
    "<SecCallPathProfileData><M n=\"0\" v=\"10\"/>\n"
    "<PF i=\"1\" n=\"0\" lm=\"0\"><M n=\"0\" v=\"10\"/><C i=\"2\"><M n=\"0\" v=\"10\"/>"
    "<PF i=\"3\" n=\"1\" lm=\"0\" f=\"0\" l=\"1\" color=\"red\"><M n=\"0\" v=\"10\"/><M n=\"1\" "
    "v=\"1\"/>"
    "<S i=\"4\" f=\"0\" l=\"3\"><M n=\"0\" v=\"1\"/><M n=\"1\" v=\"1\"/></S>"
    "<C i=\"5\" f=\"0\" l=\"5\"><M n=\"0\" v=\"6\"/><M n=\"2\" v=\"2\"/>"
    "<PF i=\"6\" n=\"2\" lm=\"0\" f=\"0\" l=\"10\"><M n=\"0\" v=\"6\"/><M n=\"1\" v=\"2\"/>"
    "<L i=\"7\" f=\"0\" l=\"11\"><M n=\"0\" v=\"2\"/><M n=\"1\" v=\"2\"/><S i=\"8\" f=\"0\" "
    "l=\"12\"><M n=\"0\" v=\"2\"/><M n=\"1\" v=\"2\"/></S></L>"
    "<C i=\"9\" f=\"0\" l=\"13\"><M n=\"0\" v=\"4\"/><M n=\"2\" v=\"3\"/>"
    "<PF i=\"10\" n=\"2\" lm=\"0\" f=\"0\" l=\"10\"><M n=\"0\" v=\"4\"/><M n=\"1\" v=\"1\"/>"
    "<ThreadValues><M n=\"0\" v=\"999\"/><PF i=\"99\" n=\"3\"/></ThreadValues>"
    "<S i=\"11\" f=\"0\" l=\"12\"><M n=\"0\" v=\"1\"/><M n=\"1\" v=\"1\"/></S>"
    "<C i=\"12\" f=\"0\" l=\"14\"><M n=\"0\" v=\"3\"/><M n=\"2\" v=\"1\"/>"
    "<PF i=\"13\" n=\"4\" lm=\"1\"><M n=\"0\" v=\"3\"/><M n=\"1\" v=\"3\"/><S i=\"14\"><M n=\"0\" "
    "v=\"3\"/><M n=\"1\" v=\"3\"/></S></PF></C></PF></C></PF></C>"
    "<A i=\"15\" n=\"3\" f=\"0\" l=\"6\"><M n=\"0\" v=\"2\"/><M n=\"1\" v=\"2\"/><S i=\"16\" "
    "f=\"0\" l=\"20\"><M n=\"0\" v=\"2\"/><M n=\"1\" v=\"2\"/></S></A>"
    "<T nodes=\"5\" levels=\"3\"><M n=\"0\" v=\"1\"/><M n=\"1\" v=\"1\"/></T>"
    "</PF></C></PF>\n"
    "</SecCallPathProfileData></SecCallPathProfile></csprof-experiment>\n";

enum view_kind { TOP_DOWN, BOTTOM_UP, FLAT };

/* A context, as names from the top of the view down (cs: call-site line, 0 any). */
struct expect {
    const char *path[6];
    int cs; /* call-site line of the last frame, 0: any */
    double incl, self;
};

static const struct {
    const char *name;
    struct rpt_view_options opt;
    enum view_kind view;
    double total;
    struct expect want[6];
    const char *absent; /* a name no node may have */
} cases[] = {
    {"top-down: roots elided, inlines kept, loops hidden",
     {.keep_inlines = true},
     TOP_DOWN,
     10,
     {{{"main"}, 0, 10, 1},
      {{"main", "f"}, 5, 6, 2},
      {{"main", "f", "f"}, 13, 4, 1},
      {{"main", "f", "f", "memcpy"}, 14, 3, 3},
      {{"main", "g"}, 6, 2, 2},
      {{"main", "[truncated]"}, 0, 1, 1}},
     "_start"},
    {"--keep-roots",
     {.keep_inlines = true, .keep_roots = true},
     TOP_DOWN,
     10,
     {{{"_start", "main"}, 0, 10, 1}},
     NULL},
    {"--inlines merge", {.keep_inlines = false}, TOP_DOWN, 10, {{{"main"}, 0, 10, 3}}, "g"},
    {"--loops keep",
     {.keep_inlines = true, .keep_loops = true},
     TOP_DOWN,
     10,
     {{{"main", "f"}, 5, 6, 0}, {{"main", "f", "loop at prog.c:11"}, 0, 2, 2}},
     NULL},
    {"--collapse-recursion",
     {.keep_inlines = true, .collapse_recursion = true},
     TOP_DOWN,
     10,
     {{{"main", "f"}, 5, 6, 3}, {{"main", "f", "memcpy"}, 14, 3, 3}},
     NULL},
    {"--hide f",
     {.keep_inlines = true, .hide = "^f$"},
     TOP_DOWN,
     10,
     {{{"main"}, 0, 10, 4}, {{"main", "memcpy"}, 14, 3, 3}},
     "f"},
    {"--hide-lib libc",
     {.keep_inlines = true, .hide_lib = "libc"},
     TOP_DOWN,
     10,
     {{{"main", "f", "f"}, 13, 4, 4}},
     "memcpy"},
    {"--focus f",
     {.keep_inlines = true, .focus = "^f$"},
     TOP_DOWN,
     6,
     {{{"f"}, 5, 6, 2}, {{"f", "f", "memcpy"}, 14, 3, 3}},
     "main"},
    {"--statements",
     {.keep_inlines = true, .statements = true},
     TOP_DOWN,
     10,
     {{{"main", "prog.c:3"}, 0, 1, 1}, {{"main", "f", "prog.c:12"}, 0, 2, 2}},
     NULL},
    {"bottom-up: callers of memcpy",
     {.keep_inlines = true},
     BOTTOM_UP,
     10,
     {{{"memcpy"}, 0, 3, 3},
      {{"memcpy", "f", "f", "main"}, 0, 3, 3},
      {{"f"}, 0, 6, 3},
      {{"f", "main"}, 0, 6, 3}, /* callers of f's outermost frame only: its exclusive cost
                                   there includes that of the recursive inner frame */
      {{"main"}, 0, 10, 1}},
     NULL},
    {"flat by procedure: recursion counted once",
     {.keep_inlines = true},
     FLAT,
     10,
     {{{"f"}, 0, 6, 3}, {{"memcpy"}, 0, 3, 3}, {{"main"}, 0, 10, 1}, {{"g"}, 0, 2, 2}},
     NULL},
    /* Nothing shown above main's and f's own cost (2: stays at the root) and above f's loop
       (2: a child of the root, in no procedure); rows + root self must still make the total. */
    {"flat, --hide main|f --loops keep: cost outside any procedure is the root's",
     {.keep_inlines = true, .keep_loops = true, .hide = "^(main|f)$"},
     FLAT,
     10,
     {{{"memcpy"}, 0, 3, 3}, {{"g"}, 0, 2, 2}, {{"[truncated]"}, 0, 1, 1}},
     "f"},
    {"bottom-up, --hide main|f --loops keep: the root's own cost stays the root's",
     {.keep_inlines = true, .keep_loops = true, .hide = "^(main|f)$"},
     BOTTOM_UP,
     10,
     {{{"memcpy"}, 0, 3, 3}, {{"g"}, 0, 2, 2}},
     "loop at prog.c:11"}, /* a loop is no procedure row; in no frame, its cost is the root's */
};

static int
write_db(char *path, size_t len)
{
    FILE *f;

    snprintf(path, len, "/tmp/test_report.%d.xml", (int)getpid());
    f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fputs(db_xml, f);
    return fclose(f);
}

/* The node at @path (names from the top), or 0. */
static uint32_t
find(const struct rpt_tree *t, const char *const *path, int cs)
{
    uint32_t n = 0;

    for (int i = 0; i < 6 && path[i] != NULL; i++) {
        uint32_t c, found = 0;
        bool last = i + 1 == 6 || path[i + 1] == NULL;
        for (c = t->nodes[n].first_child; c != 0; c = t->nodes[c].next_sibling)
            if (strcmp(rpt_tree_name(t, c), path[i]) == 0 &&
                (!last || cs == 0 || t->nodes[c].cs_line == cs))
                found = c;
        if (found == 0)
            return 0;
        n = found;
    }
    return n;
}

/* incl = self + children everywhere (top-down only). */
static bool
sums_hold(const struct rpt_tree *t)
{
    for (uint32_t n = 0; n < t->nnodes; n++) {
        double s = rpt_self(t, n, 0);
        for (uint32_t c = t->nodes[n].first_child; c != 0; c = t->nodes[c].next_sibling)
            s += rpt_incl(t, c, 0);
        if (fabs(s - rpt_incl(t, n, 0)) > 1e-9)
            return false;
    }
    return true;
}

static double
depth1_self(const struct rpt_tree *t)
{
    double s = rpt_self(t, 0, 0);

    for (uint32_t c = t->nodes[0].first_child; c != 0; c = t->nodes[c].next_sibling)
        s += rpt_self(t, c, 0);
    return s;
}

static bool
has_name(const struct rpt_tree *t, const char *name)
{
    for (uint32_t n = 1; n < t->nnodes; n++)
        if (strcmp(rpt_tree_name(t, n), name) == 0)
            return true;
    return false;
}

int
main(void)
{
    char path[128], err[256] = "";
    struct rpt_db *db;
    int passed = 0, failed = 0;

    if (write_db(path, sizeof path) != 0 || rpt_db_read(path, &db, err, sizeof err) != RPT_OK) {
        printf("FAIL: cannot read the database: %s\n", err);
        printf("0 passed, 1 failed\n");
        return 1;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rpt_tree *td = NULL, *v = NULL;
        const char *why = NULL;

        if (rpt_tree_build(db, &cases[i].opt, NULL, &td, err, sizeof err) != RPT_OK) {
            why = err;
            goto done;
        }
        if (cases[i].view == BOTTOM_UP && rpt_tree_bottom_up(td, 0, &v) != RPT_OK)
            why = "bottom-up failed";
        if (cases[i].view == FLAT && rpt_tree_flat(td, RPT_FLAT_PROCEDURE, &v) != RPT_OK)
            why = "flat failed";
        if (why != NULL)
            goto done;
        if (v == NULL)
            v = td;
        if (rpt_incl(v, 0, 0) != cases[i].total)
            why = "total";
        else if (v == td && !sums_hold(v))
            why = "inclusive != exclusive + children";
        else if (v != td && depth1_self(v) != rpt_incl(td, 0, 0))
            why = "depth-1 exclusive values do not sum to the total";
        else if (cases[i].absent != NULL && has_name(v, cases[i].absent))
            why = "a name that must be gone is there";
        for (int k = 0; why == NULL && k < 6 && cases[i].want[k].path[0] != NULL; k++) {
            const struct expect *e = &cases[i].want[k];
            uint32_t n = find(v, e->path, e->cs);
            if (n == 0)
                why = "a context is missing";
            else if (rpt_incl(v, n, 0) != e->incl || rpt_self(v, n, 0) != e->self) {
                printf("  %s: inclusive %g exclusive %g, want %g %g\n", e->path[0],
                       rpt_incl(v, n, 0), rpt_self(v, n, 0), e->incl, e->self);
                why = "values";
            }
        }
    done:
        if (why == NULL) {
            passed++;
        } else {
            failed++;
            printf("FAIL: %s: %s\n", cases[i].name, why);
        }
        if (v != td)
            rpt_tree_free(v);
        rpt_tree_free(td);
    }

    /* A diff of the database with itself: the two columns agree everywhere. */
    {
        struct rpt_view_options o = {.keep_inlines = true};
        struct rpt_names *names = rpt_names_new();
        struct rpt_tree *a = NULL, *b = NULL, *u = NULL;
        bool ok = names != NULL && rpt_tree_build(db, &o, names, &a, err, sizeof err) == 0 &&
                  rpt_tree_build(db, &o, names, &b, err, sizeof err) == 0 &&
                  rpt_tree_union(a, b, &u, err, sizeof err) == 0 && u->nnodes == a->nnodes;
        for (uint32_t n = 0; ok && n < u->nnodes; n++)
            ok = rpt_incl(u, n, 0) == rpt_incl(u, n, u->nvalues / 2) &&
                 rpt_self(u, n, 0) == rpt_self(u, n, u->nvalues / 2);
        ok ? passed++ : (failed++, printf("FAIL: diff with itself\n"));
        rpt_tree_free(u);
        rpt_tree_free(a);
        rpt_tree_free(b);
        rpt_names_free(names);
    }

    /* Statistics over threads: zeros count, population standard deviation. */
    {
        const double x[4] = {0, 2, 4, 6};
        struct rpt_stats st;
        rpt_stats_of(x, 4, &st);
        if (st.sum == 12 && st.mean == 3 && st.min == 0 && st.max == 6 && st.count == 3 &&
            fabs(st.stddev - sqrt(5.0)) < 1e-12 && fabs(st.cv - sqrt(5.0) / 3) < 1e-12)
            passed++;
        else
            failed++, printf("FAIL: rpt_stats_of\n");
        rpt_stats_of(x, 0, &st);
        st.sum == 0 && st.mean == 0 ? passed++ : (failed++, printf("FAIL: stats of nothing\n"));
    }

    /* Derived-metric formulas on the top-down view: operators, functions, errors. */
    {
        struct rpt_view_options o = {.keep_inlines = true};
        struct rpt_tree *t = NULL;
        struct rpt_formula *f = NULL;
        static const struct {
            const char *text;
            double want; /* at the root: samples = 10, calls = 0 */
        } ok[] = {{"samples*2+1", 21},
                  {"-(samples-4)/2", -3},
                  {"max(samples, 3)", 10},
                  {"min(1, {samples})", 1},
                  {"sqrt(samples*10)", 10},
                  {"samples/calls", 0},
                  {"log(0)", 0}};
        static const char *const bad[] = {"samples +", "nosuch*2", "pow(2, 3)", "(samples",
                                          "samples samples"};
        int nfail = 0;
        if (rpt_tree_build(db, &o, NULL, &t, err, sizeof err) != RPT_OK) {
            nfail++;
        } else {
            for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
                double v = -1;
                if (rpt_formula_compile(t, ok[k].text, &f, err, sizeof err) == RPT_OK)
                    v = rpt_formula_eval(f, t, 0, true);
                if (fabs(v - ok[k].want) > 1e-12) {
                    printf("  formula %s: %g, want %g (%s)\n", ok[k].text, v, ok[k].want, err);
                    nfail++;
                }
                rpt_formula_free(f);
                f = NULL;
            }
            for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
                err[0] = '\0';
                if (rpt_formula_compile(t, bad[k], &f, err, sizeof err) != RPT_EINVAL ||
                    strstr(err, "position") == NULL) {
                    printf("  formula %s: accepted or no position in '%s'\n", bad[k], err);
                    nfail++;
                }
                rpt_formula_free(f);
                f = NULL;
            }
        }
        nfail == 0 ? passed++ : (failed++, printf("FAIL: derived-metric formulas\n"));
        rpt_tree_free(t);
    }

    /* Reader details: unknown elements skipped, inputs and summary kept. */
    if (db->nnodes == 18 && db->ninputs == 1 && db->inputs[0].tid == 7 && db->samples == 10 &&
        db->skipped_elements == 1 && db->calls_metric == 2)
        passed++;
    else {
        failed++;
        printf("FAIL: reader: %u nodes, %d inputs, %llu skipped\n", db->nnodes, db->ninputs,
               (unsigned long long)db->skipped_elements);
    }

    /* Malformed input: an error naming the file and line, nothing printed. */
    {
        FILE *f = fopen(path, "w");
        struct rpt_db *bad = NULL;
        int rc;
        if (f != NULL) {
            fputs("<csprof-experiment version=\"1\">\n<Header n=\"x\"", f);
            fclose(f);
        }
        rc = rpt_db_read(path, &bad, err, sizeof err);
        if (rc == RPT_EFORMAT && bad == NULL && strstr(err, path) != NULL &&
            strchr(err, '\n') == NULL)
            passed++;
        else {
            failed++;
            printf("FAIL: malformed database: rc %d, \"%s\"\n", rc, err);
        }
    }
    unlink(path);
    rpt_db_free(db);
    return csp_test_finish((long)(passed), (long)failed);
}
