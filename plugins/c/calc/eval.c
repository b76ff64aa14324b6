/*
 * eval.c: the evaluator behind the `evaluate` tool, a recursive-descent
 * parser that computes as it parses.
 *
 *   expr    := term (("+" | "-") term)*
 *   term    := unary (("*" | "/" | "%") unary)*
 *   unary   := ("-" | "+") unary | power
 *   power   := primary ("^" unary)?          right-associative: 2^3^2 = 2^9
 *   primary := number | name | name "(" expr ("," expr)* ")" | "(" expr ")"
 *
 * So -2^2 = -4 and 2^-1 = 0.5, as in mathematics. Every cycle of the
 * recursion passes through unary(), which counts it against EVAL_MAX_DEPTH
 * (one level per parenthesis, call, sign or exponent), so no input can
 * exhaust the stack.
 */
#include "eval.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *s;
    size_t pos;
    int depth;
    eval_outcome *out;
} parser;

static bool fail_at(parser *p, size_t pos, eval_status status, const char *fmt, ...) {
    if (p->out->status == EVAL_OK) {
        p->out->status = status;
        /* The column counts characters: UTF-8 continuation bytes do not. */
        size_t column = 1;
        for (size_t i = 0; i < pos && p->s[i] != '\0'; i++) column += (p->s[i] & 0xC0) != 0x80;
        p->out->column = column;
        va_list args;
        va_start(args, fmt);
        vsnprintf(p->out->message, sizeof p->out->message, fmt, args);
        va_end(args);
    }
    return false;
}

static void skip_space(parser *p) {
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
           p->s[p->pos] == '\r')
        p->pos++;
}

/* What is at the current position, for messages: the whole character,
 * so that a message never holds part of a UTF-8 sequence. */
static const char *found(parser *p, char *buf, size_t size) {
    const char *at = p->s + p->pos;
    if (*at == '\0') return "the end of the expression";
    int n = 1;
    while (n < 4 && (at[n] & 0xC0) == 0x80) n++;
    snprintf(buf, size, "'%.*s'", n, at);
    return buf;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

static bool finite_or_fail(parser *p, size_t pos, double v, const char *what) {
    if (isfinite(v)) return true;
    return fail_at(p, pos, EVAL_MATH, "%s has no finite result", what);
}

static bool expr(parser *p, double *v);
static bool unary(parser *p, double *v);

static bool enter(parser *p) {
    if (++p->depth > EVAL_MAX_DEPTH)
        return fail_at(p, p->pos, EVAL_SYNTAX, "nested more than %d levels deep (parentheses, calls, signs and exponents)", EVAL_MAX_DEPTH);
    return true;
}

static bool number(parser *p, double *v) {
    size_t start = p->pos;
    while (is_digit(p->s[p->pos])) p->pos++;
    if (p->s[p->pos] == '.') {
        p->pos++;
        while (is_digit(p->s[p->pos])) p->pos++;
    }
    if (p->pos == start + 1 && p->s[start] == '.')
        return fail_at(p, start, EVAL_SYNTAX, "a lone '.' is not a number");
    if (p->s[p->pos] == 'e' || p->s[p->pos] == 'E') {
        size_t e = p->pos++;
        if (p->s[p->pos] == '+' || p->s[p->pos] == '-') p->pos++;
        if (!is_digit(p->s[p->pos]))
            return fail_at(p, e, EVAL_SYNTAX, "the exponent of a number needs digits");
        while (is_digit(p->s[p->pos])) p->pos++;
    }
    /* The text is ASCII digits, '.', 'e' and a sign: strtod reads exactly it. */
    *v = strtod(p->s + start, NULL);
    return finite_or_fail(p, start, *v, "the number");
}

typedef struct function {
    const char *name;
    int min_args, max_args; /* max_args < 0: any number */
} function;

static const function functions[] = {
    {"sqrt", 1, 1}, {"abs", 1, 1},   {"min", 1, -1},  {"max", 1, -1}, {"round", 1, 1},
    {"floor", 1, 1}, {"ceil", 1, 1}, {"ln", 1, 1},    {"log10", 1, 1}, {"exp", 1, 1},
    {"sin", 1, 1},  {"cos", 1, 1},   {"tan", 1, 1},
};
#define FUNCTION_NAMES "sqrt, abs, min, max, round, floor, ceil, ln, log10, exp, sin, cos, tan"

static bool apply(parser *p, const function *f, size_t at, const double *a, int n, double *v) {
    const char *name = f->name;
    if (strcmp(name, "sqrt") == 0) {
        if (a[0] < 0)
            return fail_at(p, at, EVAL_MATH, "sqrt of a negative number (%.15g)", a[0]);
        *v = sqrt(a[0]);
    } else if (strcmp(name, "abs") == 0) {
        *v = fabs(a[0]);
    } else if (strcmp(name, "min") == 0 || strcmp(name, "max") == 0) {
        bool is_min = name[1] == 'i';
        *v = a[0];
        for (int i = 1; i < n; i++) *v = is_min ? fmin(*v, a[i]) : fmax(*v, a[i]);
    } else if (strcmp(name, "round") == 0) {
        *v = round(a[0]);
    } else if (strcmp(name, "floor") == 0) {
        *v = floor(a[0]);
    } else if (strcmp(name, "ceil") == 0) {
        *v = ceil(a[0]);
    } else if (strcmp(name, "ln") == 0 || strcmp(name, "log10") == 0) {
        if (a[0] <= 0)
            return fail_at(p, at, EVAL_MATH, "%s of a number that is not positive (%.15g)", name,
                           a[0]);
        *v = name[1] == 'n' ? log(a[0]) : log10(a[0]);
    } else if (strcmp(name, "exp") == 0) {
        *v = exp(a[0]);
    } else if (strcmp(name, "sin") == 0) {
        *v = sin(a[0]);
    } else if (strcmp(name, "cos") == 0) {
        *v = cos(a[0]);
    } else {
        *v = tan(a[0]);
    }
    p->out->operations++;
    return finite_or_fail(p, at, *v, name);
}

/* The most arguments one call takes (min/max). */
#define MAX_ARGS 32

static bool call(parser *p, const function *f, size_t at, double *v) {
    double args[MAX_ARGS];
    int n = 0;
    p->pos++; /* '(' */
    skip_space(p);
    if (p->s[p->pos] != ')') {
        for (;;) {
            if (n == MAX_ARGS)
                return fail_at(p, p->pos, EVAL_SYNTAX, "more than %d arguments", MAX_ARGS);
            if (!expr(p, &args[n++])) return false;
            skip_space(p);
            if (p->s[p->pos] == ',') {
                p->pos++;
                continue;
            }
            break;
        }
    }
    char buf[8];
    if (p->s[p->pos] != ')')
        return fail_at(p, p->pos, EVAL_SYNTAX, "expected ',' or ')' but found %s",
                       found(p, buf, sizeof buf));
    p->pos++;
    if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
        if (f->max_args < 0)
            return fail_at(p, at, EVAL_SYNTAX, "%s takes at least %d argument(s), got %d",
                           f->name, f->min_args, n);
        return fail_at(p, at, EVAL_SYNTAX, "%s takes %d argument(s), got %d", f->name,
                       f->min_args, n);
    }
    return apply(p, f, at, args, n, v);
}

static bool name(parser *p, double *v) {
    size_t start = p->pos;
    while (is_name_start(p->s[p->pos]) || is_digit(p->s[p->pos])) p->pos++;
    size_t len = p->pos - start;
    const char *word = p->s + start;
    skip_space(p);
    if (p->s[p->pos] == '(') {
        for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
            if (strlen(functions[i].name) == len && memcmp(functions[i].name, word, len) == 0)
                return call(p, &functions[i], start, v);
        }
        return fail_at(p, start, EVAL_SYNTAX, "unknown function '%.*s' (known: " FUNCTION_NAMES ")",
                       (int)(len > 40 ? 40 : len), word);
    }
    if (len == 2 && memcmp(word, "pi", 2) == 0) {
        *v = M_PI;
        return true;
    }
    if (len == 1 && word[0] == 'e') {
        *v = M_E;
        return true;
    }
    return fail_at(p, start, EVAL_SYNTAX, "unknown name '%.*s' (the constants are pi and e)",
                   (int)(len > 40 ? 40 : len), word);
}

static bool primary(parser *p, double *v) {
    skip_space(p);
    char c = p->s[p->pos];
    if (c == '(') {
        size_t open = p->pos++;
        if (!expr(p, v)) return false;
        skip_space(p);
        if (p->s[p->pos] != ')') {
            char buf[8];
            return fail_at(p, p->pos, EVAL_SYNTAX,
                           "expected ')' to close the '(' at column %zu but found %s", open + 1,
                           found(p, buf, sizeof buf));
        }
        p->pos++;
        return true;
    }
    if (is_digit(c) || c == '.') return number(p, v);
    if (is_name_start(c)) return name(p, v);
    char buf[8];
    return fail_at(p, p->pos, EVAL_SYNTAX, "expected a number, a name or '(' but found %s",
                   found(p, buf, sizeof buf));
}

static bool power(parser *p, double *v) {
    if (!primary(p, v)) return false;
    skip_space(p);
    if (p->s[p->pos] != '^') return true;
    size_t at = p->pos++;
    double exponent;
    if (!unary(p, &exponent)) return false;
    if (*v == 0 && exponent < 0)
        return fail_at(p, at, EVAL_MATH, "division by zero (0 to a negative power)");
    double base = *v;
    *v = pow(base, exponent);
    p->out->operations++;
    if (isnan(*v))
        return fail_at(p, at, EVAL_MATH, "%.15g ^ %.15g is not a real number", base, exponent);
    return finite_or_fail(p, at, *v, "the power");
}

static bool unary(parser *p, double *v) {
    if (!enter(p)) return false;
    skip_space(p);
    bool ok;
    char c = p->s[p->pos];
    if (c == '-' || c == '+') {
        p->pos++;
        ok = unary(p, v);
        if (ok && c == '-') *v = -*v;
    } else {
        ok = power(p, v);
    }
    p->depth--;
    return ok;
}

static bool term(parser *p, double *v) {
    if (!unary(p, v)) return false;
    for (;;) {
        skip_space(p);
        char op = p->s[p->pos];
        if (op != '*' && op != '/' && op != '%') return true;
        size_t at = p->pos++;
        double right;
        if (!unary(p, &right)) return false;
        if (op != '*' && right == 0)
            return fail_at(p, at, EVAL_MATH, op == '/' ? "division by zero" : "modulo by zero");
        *v = op == '*' ? *v * right : op == '/' ? *v / right : fmod(*v, right);
        p->out->operations++;
        if (!finite_or_fail(p, at, *v, op == '*' ? "the product" : "the division")) return false;
    }
}

static bool expr(parser *p, double *v) {
    bool ok = term(p, v);
    while (ok) {
        skip_space(p);
        char op = p->s[p->pos];
        if (op != '+' && op != '-') break;
        size_t at = p->pos++;
        double right;
        ok = term(p, &right);
        if (!ok) break;
        *v = op == '+' ? *v + right : *v - right;
        p->out->operations++;
        ok = finite_or_fail(p, at, *v, op == '+' ? "the sum" : "the difference");
    }
    return ok;
}

eval_outcome eval_expression(const char *text) {
    eval_outcome out = {.status = EVAL_OK};
    parser p = {.s = text, .out = &out};
    size_t len = strlen(text);
    if (len > EVAL_MAX_LENGTH) {
        fail_at(&p, EVAL_MAX_LENGTH, EVAL_SYNTAX, "longer than %d characters", EVAL_MAX_LENGTH);
        return out;
    }
    skip_space(&p);
    if (text[p.pos] == '\0') {
        fail_at(&p, p.pos, EVAL_SYNTAX, "the expression is empty");
        return out;
    }
    double v = 0;
    if (expr(&p, &v)) {
        skip_space(&p);
        if (text[p.pos] != '\0') {
            char buf[8];
            fail_at(&p, p.pos, EVAL_SYNTAX, "unexpected %s after a complete expression",
                    found(&p, buf, sizeof buf));
        }
    }
    out.value = v;
    return out;
}
