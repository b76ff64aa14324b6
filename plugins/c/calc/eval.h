/*
 * eval.h: a safe arithmetic expression evaluator: + - * / % ^, parentheses,
 * unary minus, functions and the constants pi and e, with bounded length
 * and nesting and errors that name the column.
 */
#ifndef CALC_EVAL_H
#define CALC_EVAL_H

#include <stddef.h>

/** The longest expression accepted, in bytes. */
#define EVAL_MAX_LENGTH 2000
/** The deepest nesting of parentheses, calls and unary signs accepted. */
#define EVAL_MAX_DEPTH 100

typedef enum eval_status {
    EVAL_OK,
    /** The expression is not well formed (or too long, or too deep). */
    EVAL_SYNTAX,
    /** It is well formed but has no finite value (division by zero, ...). */
    EVAL_MATH,
} eval_status;

typedef struct eval_outcome {
    eval_status status;
    double value;
    /** The 1-based column of the error. */
    size_t column;
    /** What went wrong, without the column. */
    char message[160];
    /** How many operators and functions were applied. */
    size_t operations;
} eval_outcome;

/** Evaluates the NUL-terminated expression `text`. */
eval_outcome eval_expression(const char *text);

#endif
