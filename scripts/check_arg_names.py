#!/usr/bin/env python3
"""Check, without running anything, that the converters in aten_lib/ read arguments by names their
ops' schemas have, and call other converters with such names.

    python3 scripts/check_arg_names.py aten_lib

Converters read arguments by schema name (ConvertCtx::arg, tensor, has, ...; docs/architecture.md).
A name the node's schema lacks is an error when the converter runs, which the converter tests
catch for the paths they take; this catches a misspelt name on any path. For every function that
takes `ConvertCtx &c` it collects the names it reads (string literals given to the accessors and
to helpers that take the context first), the ops it serves (its registrations, the registrations
of the converters that call it, ops forwarded to it with same_as), and reports each name that no
schema of those ops has (LibTorch's schemas, `torch._C._jit_get_schemas_for_operator`). Names
passed to c.call("op", {{"name", ...}}) are checked against op's schemas. A name chosen at run
time (a variable) is not seen. It also reports positional reads (c.in(i), c.int_or(i, ...),
c.tensor(0), c.has(kBias), ...): ConvertCtx keeps them for plugins, torch2onnx's converters read by
name. Exit 1 with one line per problem; 77 (skipped) without torch.
"""
import os
import re
import sys

# Calls whose first argument (after `c, ` for helpers) names an argument: a literal, or a choice
# between literals (c.tensor(c.takes("a") ? "a" : "self")).
ACCESS = re.compile(
    r"\b(?:c\.(?:arg(?:<[^>;]*>)?|tensor|tensor_or_none|has|takes|info|ints|list)\(|"
    r"(?:rank_of|static_dim|operand|is_complex|as_carried|real_factor|num|arg_dtype|"
    r"fast_path_mask)\(c, )")
# Name lists: out_type(c, {"self", "other"}).
LISTS = re.compile(r"\b(?:out_type|result_type)\(c, \{([^}]*)\}")
CALL = re.compile(r'(?:\bc\.(?:call|call_real)\(|\brun_converter\(c, )\s*"([\w:.]+)",\s*\{')
REG = re.compile(r'r\.(add|add_with_inplace|add_complex)\(\s*("[\w:.]+"|op)\s*,\s*\d+\s*,\s*'
                 r'(same_as\("([\w:.]+)"\)|[\w:]+)')
# Positional reads: ConvertCtx's index accessors, or a name accessor given a number or a kIndex.
POSITIONAL = re.compile(r"\b\w+\.(?:in|num_inputs|int_or|double_or|bool_or|str_or|ints_or)\(|"
                        r"\bc\.(?:tensor|tensor_or_none|has|info)\(\s*(?:\d|k[A-Z])")
LOOP = re.compile(r"for \(const char \*op :\s*\{([^}]*)\}\)")


def schemas_of(op, cache={}):
    if op not in cache:
        import torch  # noqa: F401 (loads the operator registry)
        try:
            import torchvision  # noqa: F401 (torchvision::nms, roi_align)
        except Exception:
            pass
        base = op[:-4] if op.endswith(".num") else op
        names = set()
        for s in torch._C._jit_get_schemas_for_operator(base):
            names.update(a.name for a in s.arguments)
        cache[op] = names
    return cache[op]


def functions(text):
    """(name, body, first line) of each top-level function taking ConvertCtx &c."""
    out = []
    for m in re.finditer(r"^(?:template <[^>]*> )?[\w:<>&* ]+?\b(\w+)\(([^;{)]*ConvertCtx &c[^;{]*)\)"
                         r"\s*(?:const\s*)?\{\n(.*?)^\}", text, re.S | re.M):
        out.append((m.group(1), m.group(3), text.count("\n", 0, m.start()) + 1))
    return out


def balanced(text, start):
    """The text from start up to the parenthesis closing the one before start."""
    depth = 1
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start:i]
    return text[start:]


def first_arg(args):
    """The first top-level argument of a call's argument text."""
    depth = 0
    for i, ch in enumerate(args):
        depth += {"(": 1, "{": 1, ")": -1, "}": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            return args[:i]
    return args


def names_read(body):
    """The argument names `body` reads through the accessors."""
    out = set()
    for m in ACCESS.finditer(body):
        arg = first_arg(balanced(body, m.end())).strip()
        if re.fullmatch(r'"\w+"', arg):
            out.add(arg.strip('"'))
        elif "?" in arg and "(" not in arg.split("?")[-1]:
            out |= set(re.findall(r'[?:]\s*"(\w+)"', arg))
    for m in LISTS.finditer(body):
        out |= set(re.findall(r'"(\w+)"', m.group(1)))
    return out


def positional_reads(src):
    """file:line: text of each positional argument read in src's .cpp and .h files."""
    out = []
    for name in sorted(os.listdir(src)):
        if not name.endswith((".cpp", ".h")) or name == "converter.h":
            continue
        with open(os.path.join(src, name), encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                code = line.split("//")[0]
                if POSITIONAL.search(code):
                    out.append(f"{src}/{name}:{n}: reads an argument by position, not by its "
                               f"schema name: {code.strip()}")
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "aten_lib"
    try:
        import torch  # noqa: F401
    except Exception:
        print("skipped: python3 has no torch")
        return 77
    texts = {}
    for name in sorted(os.listdir(src)):
        if name.endswith(".cpp"):
            with open(os.path.join(src, name), encoding="utf-8") as f:
                texts[name] = f.read()
    funcs = {}  # name -> (file, body, line)
    ops = {}  # function -> ops it serves
    forwards = []  # (alias op, target op)
    for file, text in texts.items():
        for name, body, line in functions(text):
            funcs.setdefault(name, (file, body, line))
        for reg in re.finditer(r"void register_\w+\(Registry &r\) \{\n(.*?)^\}", text, re.S | re.M):
            body = reg.group(1)
            loops = [(m.start(), m.end(), re.findall(r'"([\w:.]+)"', m.group(1)))
                     for m in LOOP.finditer(body)]
            for m in REG.finditer(body):
                if m.group(2) == "op":
                    owner = [o for s, e, o in loops if e <= m.start()][-1]
                else:
                    owner = [m.group(2).strip('"')]
                names = [o + "_" for o in owner] if m.group(1) == "add_with_inplace" else []
                for op in owner + names:
                    if m.group(4):
                        forwards.append((op, m.group(4)))
                    else:
                        ops.setdefault(m.group(3).split("<")[0], set()).add(op)
    for alias, target in forwards:
        for fn, served in list(ops.items()):
            if target in served:
                served.add(alias)
    changed = True
    while changed:
        changed = False
        for caller, (_, body, _) in funcs.items():
            for callee in set(re.findall(r"\b(\w+)(?:<[^>(]*>)?\(c[,)]", body)) & set(funcs):
                before = len(ops.setdefault(callee, set()))
                ops[callee] |= ops.get(caller, set())
                changed = changed or len(ops[callee]) != before
    problems = positional_reads(src)
    for name, (file, body, line) in sorted(funcs.items()):
        served = ops.get(name, set())
        if not served:
            continue
        known = set().union(*(schemas_of(op) for op in served))
        for m in CALL.finditer(body):
            passed = set(re.findall(r'\{\s*"(\w+)",', balanced(body, m.end())))
            for n in sorted(passed - schemas_of(m.group(1))):
                problems.append(f"{src}/{file}:{line}: {name} passes '{n}' to {m.group(1)}, "
                                f"whose schemas have no such argument")
        for n in sorted(names_read(body) - known):
            problems.append(f"{src}/{file}:{line}: {name} reads '{n}', which no schema of "
                            f"{', '.join(sorted(served))} has")
    for p in problems:
        print(p)
    served = sum(1 for f in funcs if ops.get(f))
    print(f"{served} functions serving registered ops checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
