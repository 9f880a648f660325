/* gendoc.c -- memheat's man page and bash completion, generated at build time
 * from the built `memheat` itself (packaging/CMakeLists.txt runs it).
 *
 *   mh-gendoc MEMHEAT VERSION OUT.1 OUT.bash
 *
 * `memheat --help` lists the commands (src/cli/commands.def's table); each
 * `memheat CMD --help` gives the command's usage and options. The man page has
 * one subsection per command with its help turned into man(7) markup (option
 * lines "  -o, --output NAME  text" become tagged paragraphs); the completion
 * script completes commands, each command's options, and files elsewhere.
 * So neither can fall behind the CLI. A build-time tool: errors go to stderr
 * and fail the build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CMDS 64
#define MAX_OPTS 64
#define MAX_TEXT (64 * 1024)

typedef struct gd_cmd {
    char name[32];
    char summary[160];
    char help[MAX_TEXT];
    char opts[MAX_OPTS][40]; /* "--output", "-o" */
    int nopts;
} gd_cmd;

static gd_cmd g_cmds[MAX_CMDS];

/* stdout of `memheat ARGS`, into buf (NUL-terminated). */
static int capture(const char *memheat, const char *args, char *buf, size_t cap) {
    char line[4096];
    if ((size_t)snprintf(line, sizeof line, "'%s' %s 2>&1", memheat, args) >= sizeof line) return -1;
    FILE *p = popen(line, "r");
    if (!p) return -1;
    size_t n = fread(buf, 1, cap - 1, p);
    buf[n] = '\0';
    int st = pclose(p);
    return st == 0 && n > 0 && n < cap - 1 ? 0 : -1;
}

/* man(7) text: escape backslashes, hyphens of options, and a leading dot or quote. */
static void man_text(FILE *f, const char *s, size_t n) {
    if (n > 0 && (s[0] == '.' || s[0] == '\'')) fputs("\\&", f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\') fputs("\\e", f);
        else if (s[i] == '-') fputs("\\-", f);
        else fputc(s[i], f);
    }
}

static size_t lead_spaces(const char *s) {
    size_t k = 0;
    while (s[k] == ' ') k++;
    return k;
}

static void add_opt(gd_cmd *c, const char *s, size_t n) {
    if (c->nopts >= MAX_OPTS || n == 0 || n >= sizeof c->opts[0]) return;
    for (int i = 0; i < c->nopts; i++)
        if (strlen(c->opts[i]) == n && !memcmp(c->opts[i], s, n)) return;
    memcpy(c->opts[c->nopts], s, n);
    c->opts[c->nopts++][n] = '\0';
}

/* An option line: "  -o, --output NAME   text" or "      --keep-trace   text".
 * Sets *tag_len to the end of the option column (before the 2-space gap) and
 * records the option names. Returns 0 when the line is not one. */
static int option_line(gd_cmd *c, const char *s, size_t n, size_t *tag_len) {
    size_t k = lead_spaces(s);
    if (k < 2 || k > 6 || k >= n || s[k] != '-') return 0;
    size_t end = k;
    while (end < n && !(s[end] == ' ' && end + 1 < n && s[end + 1] == ' ')) end++;
    *tag_len = end;
    for (size_t i = k; i < end;) { /* names: words starting with '-' */
        size_t j = i;
        while (j < end && s[j] != ' ' && s[j] != ',' && s[j] != '=' && s[j] != '[') j++;
        if (s[i] == '-' && j - i > 1) add_opt(c, s + i, j - i);
        while (j < end && s[j] != ' ') j++;
        while (j < end && (s[j] == ' ' || s[j] == ',')) j++;
        i = j;
    }
    return 1;
}

/* One command's help as man(7): usage line in bold, paragraphs, tagged
 * options, "heading:" lines as bold lead-ins; other indented text as-is. */
static void man_help(FILE *f, gd_cmd *c) {
    const char *s = c->help;
    int in_tag = 0, in_pre = 0;
    while (*s) {
        const char *eol = strchr(s, '\n');
        size_t n = eol ? (size_t)(eol - s) : strlen(s);
        size_t k = lead_spaces(s), tag;
        if (n == 0) {
            if (in_pre) fputs(".fi\n", f), in_pre = 0;
            fputs(".PP\n", f);
            in_tag = 0;
        } else if (!strncmp(s, "usage: ", 7)) {
            fputs(".PP\n.B ", f);
            man_text(f, s + 7, n - 7);
            fputc('\n', f);
        } else if (option_line(c, s, n, &tag)) {
            if (in_pre) fputs(".fi\n", f), in_pre = 0;
            fputs(".TP\n.B ", f);
            man_text(f, s + k, tag - k);
            fputc('\n', f);
            size_t t = tag + lead_spaces(s + tag);
            if (t < n) man_text(f, s + t, n - t), fputc('\n', f);
            in_tag = 1;
        } else if (in_tag && k >= 8) { /* continuation of an option's text */
            man_text(f, s + k, n - k);
            fputc('\n', f);
        } else if (k == 0 && s[n - 1] == ':' && n < 60) { /* "sampling (traced run):" */
            if (in_pre) fputs(".fi\n", f), in_pre = 0;
            fputs(".PP\n.I ", f);
            man_text(f, s, n);
            fputc('\n', f);
            in_tag = 0;
        } else if (k > 0) { /* indented text: keep its layout */
            if (!in_pre) fputs(".PP\n.nf\n", f), in_pre = 1;
            man_text(f, s, n);
            fputc('\n', f);
            in_tag = 0;
        } else {
            if (in_pre) fputs(".fi\n", f), in_pre = 0;
            man_text(f, s, n);
            fputc('\n', f);
            in_tag = 0;
        }
        s += n + (eol ? 1 : 0);
    }
    if (in_pre) fputs(".fi\n", f);
}

static int write_man(const char *path, const char *version, int ncmds) {
    FILE *f = fopen(path, "w");
    if (!f) return perror(path), -1;
    fprintf(f, ".\\\" Generated by packaging/gendoc.c from memheat's --help texts: do not edit.\n"
               ".TH MEMHEAT 1 \"\" \"memheat %s\" \"User Commands\"\n"
               ".SH NAME\nmemheat \\- GPU memory\\-performance analyzer\n"
               ".SH SYNOPSIS\n.B memheat\n.I command\n[\\fIoptions\\fR] [\\fIargs\\fR]\n"
               ".br\n.B memheat \\-\\-help\n.br\n.B memheat \\-\\-version\n"
               ".SH DESCRIPTION\nmemheat finds out why a GPU kernel's memory traffic is slow. "
               "It runs a CUDA program under its injection libraries, or an OpenCL program under "
               "the Oclgrind simulator with its plugin, writes a trace of the sampled memory "
               "accesses and the kernel times, and imports them into a profile database "
               "(\\fINAME\\fB.mhdb\\fR) with heat maps, access patterns and locality metrics. "
               "Reports and diffs read only the profile.\n"
               ".SH COMMANDS\n",
            version);
    for (int i = 0; i < ncmds; i++) {
        fputs(".TP\n.B ", f);
        man_text(f, g_cmds[i].name, strlen(g_cmds[i].name));
        fputc('\n', f);
        man_text(f, g_cmds[i].summary, strlen(g_cmds[i].summary));
        fputc('\n', f);
    }
    for (int i = 0; i < ncmds; i++) {
        fprintf(f, ".SS \"memheat %s\"\n", g_cmds[i].name);
        man_help(f, &g_cmds[i]);
    }
    fputs(".SH EXIT STATUS\n"
          ".TP\n0\nsuccess\n"
          ".TP\n1\nerror: unreadable, damaged or foreign input, I/O failure, missing component\n"
          ".TP\n2\nbad command line (unknown command or option, bad value)\n"
          ".TP\n3\nthe profiled program failed; what was collected is kept\n"
          ".TP\n4\ninput cut short; results cover what was complete\n"
          ".SH ENVIRONMENT\n"
          ".TP\n.B MEMHEAT_LIB_DIR\nfolder of the collector files (injection libraries, Oclgrind plugin, "
          "device patch, helper programs); default: the private library folder of the installation "
          "(\\fI../lib/memheat\\fR beside the folder of \\fBmemheat\\fR)\n"
          ".TP\n.B MEMHEAT_CUDA_LIB\\fR, \\fBMEMHEAT_CUPTI_LIB\nname one collector library directly\n"
          ".TP\n.B MEMHEAT_OCLGRIND\nthe Oclgrind program (default: \\fBoclgrind\\fR on \\fBPATH\\fR)\n"
          ".TP\n.B MEMHEAT_DATA_DIR\nper-device data (calibration, camping models); default "
          "\\fI$XDG_DATA_HOME/memheat\\fR, else \\fI~/.local/share/memheat\\fR\n"
          ".TP\n.B NO_COLOR\nno colour in terminal output\n"
          ".SH FILES\n"
          ".TP\n.I <prefix>/lib/memheat/\nlibmemheat_oclgrind.so (OpenCL), libmemheat_cuda.so and "
          "memheat_cuda_patch.fatbin (CUDA tracer), libmemheat_cupti.so (CUDA timer), memheat\\-bwcal, "
          "memheat\\-campbench (calibration)\n"
          ".SH SEE ALSO\n.BR oclgrind (1),\n.BR compute\\-sanitizer (1)\n",
          f);
    return fclose(f) == 0 ? 0 : (perror(path), -1);
}

static int write_bash(const char *path, int ncmds) {
    FILE *f = fopen(path, "w");
    if (!f) return perror(path), -1;
    fputs("# bash completion for memheat -- generated by packaging/gendoc.c from memheat's --help texts.\n"
          "_memheat() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} i opts=\n"
          "    if [ \"$COMP_CWORD\" -le 1 ]; then\n"
          "        COMPREPLY=($(compgen -W \"--help --version",
          f);
    for (int i = 0; i < ncmds; i++) fprintf(f, " %s", g_cmds[i].name);
    fputs("\" -- \"$cur\"))\n"
          "        return\n"
          "    fi\n"
          "    for ((i = 2; i < COMP_CWORD; i++)); do # after --: the profiled program and its arguments\n"
          "        if [ \"${COMP_WORDS[i]}\" = -- ]; then\n"
          "            if [ $((i + 1)) -eq \"$COMP_CWORD\" ]; then COMPREPLY=($(compgen -c -- \"$cur\"));\n"
          "            else COMPREPLY=($(compgen -f -- \"$cur\")); fi\n"
          "            return\n"
          "        fi\n"
          "    done\n"
          "    case ${COMP_WORDS[1]} in\n",
          f);
    for (int i = 0; i < ncmds; i++) {
        fprintf(f, "    %s) opts=\"", g_cmds[i].name);
        for (int j = 0; j < g_cmds[i].nopts; j++) fprintf(f, "%s%s", j ? " " : "", g_cmds[i].opts[j]);
        fputs("\" ;;\n", f);
    }
    fputs("    *) return ;;\n"
          "    esac\n"
          "    if [[ $cur == -* ]]; then\n"
          "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
          "    else\n"
          "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
          "    fi\n"
          "}\n"
          "complete -o filenames -F _memheat memheat\n",
          f);
    return fclose(f) == 0 ? 0 : (perror(path), -1);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: mh-gendoc MEMHEAT VERSION OUT.1 OUT.bash\n");
        return 2;
    }
    static char top[MAX_TEXT];
    if (capture(argv[1], "--help", top, sizeof top) != 0) {
        fprintf(stderr, "mh-gendoc: '%s --help' failed\n", argv[1]);
        return 1;
    }
    /* "commands:" then "  name  summary" lines up to a blank line */
    char *p = strstr(top, "\ncommands:\n");
    int n = 0;
    if (p) p += strlen("\ncommands:\n");
    while (p && *p == ' ' && n < MAX_CMDS) {
        char *eol = strchr(p, '\n');
        if (eol) *eol = '\0';
        gd_cmd *c = &g_cmds[n];
        if (sscanf(p, " %31s", c->name) == 1) {
            const char *sum = p + lead_spaces(p) + strlen(c->name);
            snprintf(c->summary, sizeof c->summary, "%s", sum + lead_spaces(sum));
            n++;
        }
        p = eol ? eol + 1 : NULL;
    }
    if (n == 0) {
        fprintf(stderr, "mh-gendoc: no commands in '%s --help'\n", argv[1]);
        return 1;
    }
    for (int i = 0; i < n; i++) {
        char args[sizeof g_cmds[i].name + 16];
        snprintf(args, sizeof args, "%.31s --help", g_cmds[i].name);
        if (capture(argv[1], args, g_cmds[i].help, sizeof g_cmds[i].help) != 0) {
            fprintf(stderr, "mh-gendoc: 'memheat %s' failed\n", args);
            return 1;
        }
        size_t tag;
        for (const char *s = g_cmds[i].help; s && *s;) { /* collect the options */
            const char *eol = strchr(s, '\n');
            size_t len = eol ? (size_t)(eol - s) : strlen(s);
            option_line(&g_cmds[i], s, len, &tag);
            s = eol ? eol + 1 : NULL;
        }
    }
    if (write_man(argv[3], argv[2], n) != 0 || write_bash(argv[4], n) != 0) return 1;
    return 0;
}
