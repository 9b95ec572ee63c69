#!/usr/bin/env python3
"""Generate ground-truth test cases by compiling C++ CuTe itself.

Reads expressions in the CuTe expression language (see cute-expr.md) from
tools/oracle/cases.txt, translates each one to the equivalent C++ CuTe call,
compiles a host program that print()s every result, runs it, and writes
tests/oracle/cute-extra.tsv with one `EXPRESSION<TAB>EXPECTED` line per case.

Expressions that C++ CuTe rejects (static_assert / compile error) or that abort
at run time are dropped, listed on stderr and recorded in tests/oracle/cute-rejected.tsv.

Usage (from the repository root):
    python3 tools/oracle/gen.py                     # regenerate tests/oracle/cute-extra.tsv
    python3 tools/oracle/gen.py --random            # rewrite the random section of cases.txt
    python3 tools/oracle/gen.py --translate EXPR    # show the C++ for one expression

Environment: CUTE_INCLUDE (default /tmp/cutlass/include), CUDA_INCLUDE (default
/tmp/cudart/nvidia/cu13/include; its cccl/ subfolder is added too), CXX (default g++).
Python 3.11, standard library only.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CASES = os.path.join(HERE, "cases.txt")
REJECTED = os.path.join(ROOT, "tests", "oracle", "cute-rejected.tsv")
OUTPUT = os.path.join(ROOT, "tests", "oracle", "cute-extra.tsv")
EXISTING = os.path.join(ROOT, "tests", "oracle", "algebra.tsv")

RANDOM_BEGIN = "# BEGIN RANDOM"
RANDOM_END = "# END RANDOM"

# ---------------------------------------------------------------------------
# Translator: expression language -> C++
# ---------------------------------------------------------------------------


class ParseError(Exception):
    pass


TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<static>_-?[0-9]+(?![A-Za-z0-9_]))
  | (?P<under>_(?![A-Za-z0-9_]))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<int>-?[0-9]+)
  | (?P<punct>[(),:.<>])
    """,
    re.VERBOSE,
)


@dataclass
class Tok:
    kind: str
    text: str
    pos: int


def tokenize(src: str) -> list[Tok]:
    toks: list[Tok] = []
    i = 0
    while i < len(src):
        m = TOKEN_RE.match(src, i)
        if not m:
            raise ParseError(f"unexpected character {src[i]!r} at {i}")
        kind = m.lastgroup
        text = m.group(kind)
        if kind == "ident" and m.end() < len(src) and src[m.end()] == "<":
            # template arguments: keep the balanced <...> text verbatim
            depth, j = 0, m.end()
            while j < len(src):
                if src[j] == "<":
                    depth += 1
                elif src[j] == ">":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if depth != 0:
                raise ParseError(f"unbalanced '<' after {text} at {i}")
            text = src[i : j + 1]
            toks.append(Tok("ident", text, i))
            i = j + 1
            continue
        if kind != "ws":
            toks.append(Tok(kind, text, i))
        i = m.end()
    toks.append(Tok("eof", "", len(src)))
    return toks


# AST nodes: ("int", n) ("static", n) ("under",) ("tuple", [items]) ("layout", S, D)
#            ("name", text) ("call", name, [args]) ("apply", fn_node, [args])


class Parser:
    def __init__(self, src: str):
        self.src = src
        self.toks = tokenize(src)
        self.i = 0

    def peek(self) -> Tok:
        return self.toks[self.i]

    def take(self, text: str | None = None) -> Tok:
        t = self.toks[self.i]
        if text is not None and t.text != text:
            raise ParseError(f"expected {text!r} at {t.pos}, found {t.text or 'end'!r}")
        self.i += 1
        return t

    def parse(self):
        node = self.expr()
        if self.peek().kind != "eof":
            t = self.peek()
            raise ParseError(f"trailing input at {t.pos}: {self.src[t.pos:]!r}")
        return node

    # expr := postfix (':' postfix)?
    def expr(self):
        lhs = self.postfix()
        if self.peek().text == ":":
            self.take(":")
            rhs = self.postfix()
            return ("layout", lhs, rhs)
        return lhs

    # postfix := primary ('(' args ')' | '.' IDENT '(' args ')')*
    def postfix(self):
        node = self.primary()
        while self.peek().text in ("(", "."):
            if self.peek().text == "(":
                node = ("apply", node, self.arglist())
                continue
            self.take(".")
            t = self.take()
            if t.kind != "ident" or "<" in t.text:
                raise ParseError(f"expected a method name at {t.pos}, found {t.text or 'end'!r}")
            node = ("method", node, t.text, self.arglist())
        return node

    def arglist(self):
        self.take("(")
        args = []
        if self.peek().text != ")":
            args.append(self.expr())
            while self.peek().text == ",":
                self.take(",")
                args.append(self.expr())
        self.take(")")
        return args

    def primary(self):
        t = self.peek()
        if t.kind == "static":
            self.take()
            return ("static", int(t.text[1:]))
        if t.kind == "int":
            self.take()
            return ("int", int(t.text))
        if t.kind == "under":
            self.take()
            return ("under",)
        if t.kind == "ident":
            self.take()
            if self.peek().text == "(":
                return ("call", t.text, self.arglist())
            return ("name", t.text)
        if t.text == "(":
            items = self.arglist()
            if not items:
                raise ParseError(f"empty tuple at {t.pos}")
            if len(items) == 1 and items[0][0] not in ("int", "static", "under", "tuple"):
                # a parenthesised layout / call result: grouping, not a rank-1 tuple
                return items[0]
            return ("tuple", items)
        raise ParseError(f"unexpected {t.text or 'end'!r} at {t.pos}")


NAMES = {
    "LayoutLeft": "cute::LayoutLeft{}",
    "LayoutRight": "cute::LayoutRight{}",
}

# Bare names of types that stand for a value of that type, `T` -> `T{}`: swizzles, copy and MMA
# atoms, and the copy / MMA operations (`Copy_Atom<DefaultCopy, float>`, `MMA_Atom<SM80_..._TN>`,
# `SM80_16x8x16_F32F16F16F32_TN`, `UniversalFMA<float>`).
TYPE_RE = re.compile(
    r"(Swizzle|Copy_Atom|MMA_Atom|UniversalFMA|UniversalCopy|SM[0-9]+_[A-Za-z0-9_]+)<.*>$"
    r"|(SM[0-9]+_[A-Za-z0-9_]+|DefaultCopy|AutoVectorizingCopy|UniversalFMA)$"
)


def to_cpp(node) -> str:
    kind = node[0]
    if kind == "int":
        return f"int({node[1]})"
    if kind == "static":
        return f"cute::Int<{node[1]}>{{}}"
    if kind == "under":
        return "cute::_"
    if kind == "tuple":
        return "cute::make_tuple(" + ", ".join(to_cpp(x) for x in node[1]) + ")"
    if kind == "layout":
        return f"cute::make_layout({to_cpp(node[1])}, {to_cpp(node[2])})"
    if kind == "name":
        name = node[1]
        if name in NAMES:
            return NAMES[name]
        if TYPE_RE.match(name):
            return f"cute::{name}{{}}"
        raise ParseError(f"unknown name {name!r}")
    if kind == "call":
        name = node[1]
        args = ", ".join(to_cpp(x) for x in node[2])
        if name.startswith("Swizzle<"):
            # a swizzle applied to an offset: a call on a swizzle value
            return f"cute::{name}{{}}({args})"
        qual = name if "::" in name else "cute::" + name
        return f"{qual}({args})"
    if kind == "apply":
        return f"({to_cpp(node[1])})(" + ", ".join(to_cpp(x) for x in node[2]) + ")"
    if kind == "method":
        return f"({to_cpp(node[1])}).{node[2]}(" + ", ".join(to_cpp(x) for x in node[3]) + ")"
    raise AssertionError(node)


def translate(expr: str) -> str:
    return to_cpp(Parser(expr).parse())


# ---------------------------------------------------------------------------
# Compile / run
# ---------------------------------------------------------------------------


def include_flags() -> list[str]:
    cute = os.environ.get("CUTE_INCLUDE", "/tmp/cutlass/include")
    cuda = os.environ.get("CUDA_INCLUDE", "/tmp/cudart/nvidia/cu13/include")
    flags = [f"-I{cute}", f"-I{cuda}"]
    if os.path.isdir(os.path.join(cuda, "cccl")):
        flags.append(f"-I{os.path.join(cuda, 'cccl')}")
    return flags


HEADER = """#include <cstdio>
#include <cstdlib>
#include <cute/tensor.hpp>
using namespace cute;
"""
FIRST_CASE_LINE = HEADER.count("\n") + 1


def program(cpps: list[str]) -> str:
    # one case per line, so that a compiler diagnostic's line number names its case
    lines = [HEADER.rstrip("\n")]
    for k, cpp in enumerate(cpps):
        lines.append(f"static void case_{k}() {{ auto r = {cpp}; cute::print(r); }}")
    lines.append("typedef void (*case_fn)();")
    lines.append("static case_fn cases[] = {" + ", ".join(f"case_{k}" for k in range(len(cpps))) + "};")
    lines.append(
        "int main(int argc, char** argv) {\n"
        f"  int n = {len(cpps)};\n"
        "  int start = argc > 1 ? atoi(argv[1]) : 0;\n"
        "  for (int k = start; k < n; ++k) {\n"
        '    printf("\\n@@BEGIN %d\\n", k); fflush(stdout);\n'
        "    cases[k]();\n"
        '    printf("\\n@@END %d\\n", k); fflush(stdout);\n'
        "  }\n"
        "  return 0;\n"
        "}"
    )
    return "\n".join(lines) + "\n"


@dataclass
class Runner:
    workdir: str
    verbose: bool = False
    compiles: int = 0
    rejected: dict = field(default_factory=dict)  # expr -> (kind, first diagnostic)
    skipped: dict = field(default_factory=dict)  # expr -> why its output is not kept
    bisect_only: bool = False

    def log(self, msg: str):
        if self.verbose:
            print(msg, file=sys.stderr, flush=True)

    def compile(self, cases: list[tuple[str, str]]) -> tuple[bool, str, str]:
        """Compile a batch of (expr, cpp). Returns (ok, binary, stderr)."""
        src = os.path.join(self.workdir, "cases.cpp")
        exe = os.path.join(self.workdir, "cases")
        with open(src, "w") as f:
            f.write(program([c for _, c in cases]))
        cxx = os.environ.get("CXX", "g++")
        cmd = [cxx, "-std=c++17", "-O0", "-w", *include_flags(), src, "-o", exe]
        self.compiles += 1
        self.log(f"  g++ #{self.compiles}: {len(cases)} case(s)")
        p = subprocess.run(cmd, capture_output=True, text=True)
        return p.returncode == 0, exe, p.stderr

    def diagnose(self, stderr: str, n: int) -> dict[int, str]:
        """Errors per case: each `error:` line belongs to the last case line named before it."""
        out: dict[int, str] = {}
        cur = None
        for line in stderr.splitlines():
            m = re.search(r"cases\.cpp:(\d+):", line)
            if m:
                k = int(m.group(1)) - FIRST_CASE_LINE
                cur = k if 0 <= k < n else None
            m = re.search(r"\berror: (.*)", line)
            if m and cur is not None and cur not in out:
                out[cur] = m.group(1).strip()[:200]
        return out

    def resolve(self, cases: list[tuple[str, str]]) -> dict[str, str]:
        """Results for a batch; drops the cases that do not compile or that abort."""
        if not cases:
            return {}
        ok, exe, err = self.compile(cases)
        if ok:
            return self.run(cases, exe)
        diag = self.diagnose(err, len(cases))
        if len(cases) == 1:
            self.reject(cases[0][0], "compile", diag.get(0) or first_error(err))
            return {}
        blame = set() if self.bisect_only else set(diag)
        if blame and len(blame) < len(cases):
            # the diagnostics name the offending cases: drop them, retry the rest
            for k in sorted(blame):
                self.reject(cases[k][0], "compile", diag[k])
            rest = [c for k, c in enumerate(cases) if k not in blame]
            return self.resolve(rest)
        # no usable diagnostics: bisect
        mid = len(cases) // 2
        out = self.resolve(cases[:mid])
        out.update(self.resolve(cases[mid:]))
        return out

    def run(self, cases: list[tuple[str, str]], exe: str) -> dict[str, str]:
        out: dict[str, str] = {}
        start = 0
        while start < len(cases):
            try:
                p = subprocess.run([exe, str(start)], capture_output=True, timeout=120)
                stdout, rc = p.stdout.decode(errors="replace"), p.returncode
            except subprocess.TimeoutExpired as e:
                stdout, rc = (e.stdout or b"").decode(errors="replace"), "timeout"
            done = set()
            for m in re.finditer(r"\n@@BEGIN (\d+)\n(.*?)\n@@END \1\n", stdout, re.S):
                k = int(m.group(1))
                done.add(k)
                why = unprintable(m.group(2))
                if why:
                    # C++ accepted it, but the language has no value that prints like this
                    self.skip(cases[k][0], why)
                else:
                    out[cases[k][0]] = m.group(2)
            if len(done) == len(cases) - start:
                if rc != 0:
                    print(f"warning: case program exited with {rc} after the last case", file=sys.stderr)
                break
            # a case aborted (assert, signal, timeout): drop it, go on after it
            bad = min(k for k in range(start, len(cases)) if k not in done)
            how = f"killed by {signal.Signals(-rc).name}" if isinstance(rc, int) and rc < 0 else f"exit status {rc}"
            self.reject(cases[bad][0], "runtime", f"aborted ({how})")
            start = bad + 1
        return out

    def skip(self, expr: str, why: str):
        self.skipped[expr] = why
        print(f"skipped (not a value of the language): {expr}    [{why}]", file=sys.stderr, flush=True)

    def reject(self, expr: str, reason: str, detail: str):
        self.rejected[expr] = (reason, detail)
        print(f"dropped ({reason}): {expr}    [{detail}]", file=sys.stderr, flush=True)


# What the language prints: integers, tuples, layouts, swizzles (`Sw<3,4,3>`), composed layouts
# (`A o O o B`) and MixedBits offsets (`M_0|(8&8)=8`), all on one line.
PRINTABLE_RE = re.compile(r"(?:[-_0-9(),:|&=]|Sw<-?[0-9]+,-?[0-9]+,-?[0-9]+>|M| o )+")


def unprintable(out: str) -> str | None:
    """Why a printed result is not a value of the language, or None when it is."""
    if "\n" in out or "\t" in out:
        return "printed more than one line"
    if not PRINTABLE_RE.fullmatch(out):
        return f"printed {out[:60]!r}"
    return None


def first_error(stderr: str) -> str:
    m = re.search(r"\berror: (.*)", stderr)
    return m.group(1).strip()[:200] if m else "compile error"


# ---------------------------------------------------------------------------
# Case files
# ---------------------------------------------------------------------------


def read_cases(path: str) -> list[str]:
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            out.append(line)
    return out


def norm(expr: str) -> str:
    return re.sub(r"\s+", "", expr)


def existing_exprs(paths: list[str] | None) -> set[str]:
    """Expressions of the TSV files `paths` (default: algebra.tsv); missing files are ignored."""
    out: set[str] = set()
    for path in paths or [EXISTING]:
        if os.path.exists(path):
            with open(path) as f:
                out |= {norm(line.split("\t", 1)[0]) for line in f if "\t" in line}
    return out


def existing_names(paths: list[str] | None) -> str:
    return ", ".join(os.path.basename(p) for p in paths or [EXISTING])


def generate(args) -> int:
    exprs = read_cases(args.cases)
    known = existing_exprs(args.existing)
    seen: set[str] = set()
    todo: list[tuple[str, str]] = []
    bad = 0
    for e in exprs:
        n = norm(e)
        if n in seen:
            continue
        seen.add(n)
        if n in known:
            print(f"skipped (already in {existing_names(args.existing)}): {e}", file=sys.stderr)
            continue
        try:
            todo.append((e, translate(e)))
        except ParseError as err:
            print(f"parse error: {e}: {err}", file=sys.stderr)
            bad += 1
    if bad:
        return 2

    with tempfile.TemporaryDirectory(prefix="cute-oracle-") as wd:
        r = Runner(wd, verbose=args.verbose, bisect_only=args.bisect_only)
        results: dict[str, str] = {}
        for b in range(0, len(todo), args.batch):
            batch = todo[b : b + args.batch]
            print(f"batch {b // args.batch + 1}: {len(batch)} cases", file=sys.stderr, flush=True)
            results.update(r.resolve(batch))

    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        for e, _ in todo:
            if e in results:
                f.write(f"{e}\t{results[e]}\n")
    with open(args.rejected, "w") as f:
        f.write(f"# Expressions from {os.path.basename(args.cases)} that C++ CuTe rejects (written by gen.py).\n")
        f.write("# EXPRESSION<TAB>KIND<TAB>FIRST DIAGNOSTIC (compile: static_assert or other compile error;\n")
        f.write("# runtime: the program aborted). Diagnostics name g++ 12 / CUTLASS header internals.\n")
        for e, _ in todo:
            if e in r.rejected:
                kind, detail = r.rejected[e]
                f.write(f"{e}\t{kind}\t{detail}\n")
    print(
        f"{len(results)} cases written to {os.path.relpath(args.output, ROOT)}, "
        f"{len(r.rejected)} dropped, {len(r.skipped)} skipped, {r.compiles} compiler runs",
        file=sys.stderr,
    )
    return 0


# ---------------------------------------------------------------------------
# Random cases
# ---------------------------------------------------------------------------


class Rand:
    SHAPES = [1, 2, 3, 4, 8]
    STRIDES = [0, 1, 2, 4, 8, 16, 32]

    def __init__(self, seed: int):
        self.r = random.Random(seed)

    def num(self, v: int, dyn_p: float = 0.3) -> str:
        return str(v) if self.r.random() < dyn_p else f"_{v}"

    def profile(self):
        """A shape profile: int leaf, or tuple of depth <= 2 (nested lists)."""
        r = self.r
        if r.random() < 0.2:
            return r.choice(self.SHAPES)
        modes = []
        for _ in range(r.choice([1, 2, 2, 2, 3])):
            if r.random() < 0.3:
                modes.append([r.choice(self.SHAPES) for _ in range(r.choice([2, 2, 3]))])
            else:
                modes.append(r.choice(self.SHAPES))
        if len(modes) == 1:
            # no rank-1 tuples: `(x)` would read as grouping in the language
            return modes[0]
        return modes

    @staticmethod
    def leaves(p) -> list[int]:
        if isinstance(p, list):
            return [x for m in p for x in Rand.leaves(m)]
        return [p]

    @staticmethod
    def refill(p, vals):
        if isinstance(p, list):
            return [Rand.refill(m, vals) for m in p]
        return vals.pop(0)

    def fmt(self, p, dyn_p=0.3) -> str:
        if isinstance(p, list):
            return "(" + ",".join(self.fmt(m, dyn_p) for m in p) + ")"
        return self.num(p, dyn_p)

    def layout(self, dyn_p: float = 0.3) -> str:
        r = self.r
        shp = self.profile()
        leaves = self.leaves(shp)
        kind = r.random()
        if kind < 0.55:  # compact in a random order of the leaves
            order = list(range(len(leaves)))
            r.shuffle(order)
            strides = [0] * len(leaves)
            acc = 1
            for i in order:
                strides[i] = acc
                acc *= leaves[i]
            if r.random() < 0.2:  # one broadcast mode
                strides[r.randrange(len(strides))] = 0
        else:
            strides = [r.choice(self.STRIDES) for _ in leaves]
        std = self.refill(shp, list(strides))
        return f"{self.fmt(shp, dyn_p)}:{self.fmt(std, dyn_p)}"

    def small_layout(self, static=True) -> str:
        r = self.r
        n = r.choice([1, 2, 2, 4, 4, 8])
        if r.random() < 0.5:
            return f"_{n}:_{r.choice([1, 1, 2, 4])}" if static else f"{self.num(n)}:{self.num(r.choice([1, 2]))}"
        a, b = r.choice([1, 2, 4]), r.choice([1, 2, 3, 4])
        if r.random() < 0.5:
            return f"(_{a},_{b}):(_1,_{a})"
        return f"(_{a},_{b}):(_{b},_1)"

    def tiler(self) -> str:
        r = self.r
        k = r.random()
        if k < 0.35:
            return self.small_layout()
        if k < 0.65:
            return "(" + ",".join(f"_{r.choice([1, 2, 4])}" for _ in range(2)) + ")"
        return f"make_tile(_{r.choice([1, 2, 4])}:_{r.choice([1, 2])}, _{r.choice([1, 2, 4])}:_{r.choice([1, 2])})"

    def coord_for(self, lay: str, tuple_p=0.5) -> list[str]:
        """Coordinates for evaluating/slicing `lay` (strings of the language)."""
        r = self.r
        shp = Parser(lay).parse()[1]
        modes = shp[1] if shp[0] == "tuple" else [shp]

        def size_of(n):
            if n[0] in ("int", "static"):
                return n[1]
            s = 1
            for m in n[1]:
                s *= size_of(m)
            return s

        def crd(n, allow_under):
            if allow_under and r.random() < 0.35:
                return "_"
            if n[0] == "tuple" and r.random() < tuple_p:
                return "(" + ",".join(crd(m, allow_under) for m in n[1]) + ")"
            return self.num(r.randrange(size_of(n)), 0.6)

        return [crd(m, True) for m in modes], [crd(m, False) for m in modes], size_of(shp)

    def case(self) -> str:
        r = self.r
        L = self.layout()
        ops = [
            "size", "cosize", "rank", "depth", "shape", "stride", "get", "layout", "select", "take",
            "coalesce", "coalesce_p", "filter", "composition", "composition", "complement", "complement1",
            "right_inverse", "left_inverse", "logical_divide", "logical_divide", "zipped_divide", "tiled_divide",
            "flat_divide", "logical_product", "zipped_product", "tiled_product", "flat_product",
            "blocked_product", "raked_product", "tile_to_shape", "upcast", "downcast",
            "max_common_vector", "max_common_layout", "flatten", "make_layout_like", "make_fragment_like",
            "make_layout", "make_layout_right", "make_ordered_layout", "crd2idx", "idx2crd", "eval", "eval1",
            "slice",
        ]
        op = r.choice(ops)
        shp = L.split(":")[0] if ":" in L else L
        pl = Parser(L).parse()
        rank = len(pl[1][1]) if pl[1][0] == "tuple" else 1
        if op in ("size", "cosize", "rank", "depth", "shape", "stride", "coalesce", "filter",
                  "right_inverse", "left_inverse", "flatten", "make_layout_like", "make_fragment_like"):
            return f"{op}({L})"
        if op in ("get", "layout"):
            i = r.randrange(rank)
            return f"{op}<{i}>({L})"
        if op == "select":
            idx = [str(r.randrange(rank)) for _ in range(r.choice([1, 2]))]
            return f"select<{','.join(idx)}>({L})"
        if op == "take":
            b = r.randrange(rank)
            e = r.randrange(b + 1, rank + 1)
            return f"take<{b},{e}>({L})"
        if op == "coalesce_p":
            prof = "(" + ",".join("_1" for _ in range(rank)) + ")" if rank > 1 else "_1"
            return f"coalesce({L}, {prof})"
        if op == "composition":
            B = self.tiler() if r.random() < 0.5 else self.layout(0.15)
            return f"composition({L}, {B})"
        if op == "complement":
            return f"complement({L}, {self.num(r.choice([8, 16, 32, 64, 128]), 0.2)})"
        if op == "complement1":
            return f"complement({L})"
        if op.endswith("_divide"):
            return f"{op}({L}, {self.tiler()})"
        if op.endswith("_product"):
            B = self.small_layout(static=r.random() < 0.8)
            if r.random() < 0.3:
                B = f"make_tile({self.small_layout()}, {self.small_layout()})"
            return f"{op}({L}, {B})"
        if op == "tile_to_shape":
            tgt = "(" + ",".join(self.num(r.choice([8, 16, 32]), 0.3) for _ in range(max(rank, 2))) + ")"
            return f"tile_to_shape({L}, {tgt})"
        if op in ("upcast", "downcast"):
            return f"{op}<{r.choice([2, 4])}>({L})"
        if op in ("max_common_vector", "max_common_layout"):
            M = L if r.random() < 0.3 else self.layout()
            return f"{op}({L}, {M})"
        if op == "make_layout":
            return f"make_layout({shp})"
        if op == "make_layout_right":
            return f"make_layout({shp}, LayoutRight)"
        if op == "make_ordered_layout":
            if rank == 1:
                return f"make_layout({shp}, LayoutRight)"
            order = list(range(rank))
            r.shuffle(order)
            return f"make_ordered_layout({shp}, ({','.join(self.num(o, 0.15) for o in order)}))"
        under, full, size = self.coord_for(L)
        if op == "crd2idx":
            if r.random() < 0.4:
                return f"crd2idx({self.num(r.randrange(size), 0.6)}, {L})"
            c = full[0] if rank == 1 else "(" + ",".join(full) + ")"
            return f"crd2idx({c}, {L})"
        if op == "idx2crd":
            return f"idx2crd({self.num(r.randrange(size), 0.6)}, {shp})"
        if op == "eval1":
            return f"({L})({self.num(r.randrange(size), 0.6)})"
        if op == "eval":
            return f"({L})({','.join(full)})"
        if op == "slice":
            if not any(re.search(r"(?<![0-9])_(?![-0-9])", u) for u in under):
                under[r.randrange(len(under))] = "_"
            return f"({L})({','.join(under)})"
        raise AssertionError(op)


class FreshRand(Rand):
    """Random cases of cases-fresh.txt, biased to where the port was found weak (issue 13):
    inverses (with dynamic extent-1 modes), swizzled layouts through max_common_*, composition,
    make_fragment_like, casts and slices, plus make_layout_like, tile_to_shape, coalesce/filter and
    divides with dynamic leaves."""

    TYPES = ["uint8_t", "uint16_t", "half_t", "bfloat16_t", "float", "uint32_t", "double", "uint64_t", "uint128_t"]

    def fill(self, p, vals: list[str]) -> str:
        if isinstance(p, list):
            return "(" + ",".join(self.fill(m, vals) for m in p) + ")"
        return vals.pop(0)

    def layout(self, dyn_p: float = 0.3, unit_p: float = 0.35) -> str:
        """A random layout; with probability unit_p one leaf becomes a dynamic extent-1 mode whose
        stride (usually) equals another leaf's."""
        r = self.r
        shp = self.profile()
        leaves = self.leaves(shp)
        if r.random() < 0.55:
            order = list(range(len(leaves)))
            r.shuffle(order)
            strides = [0] * len(leaves)
            acc = 1
            for i in order:
                strides[i] = acc
                acc *= leaves[i]
            if r.random() < 0.2:
                strides[r.randrange(len(strides))] = 0
        else:
            strides = [r.choice(self.STRIDES) for _ in leaves]
        sh = [self.num(v, dyn_p) for v in leaves]
        st = [self.num(v, dyn_p) for v in strides]
        if len(leaves) > 1 and r.random() < unit_p:
            i = r.randrange(len(leaves))
            j = r.choice([k for k in range(len(leaves)) if k != i])
            sh[i] = "1" if r.random() < 0.85 else "_1"
            st[i] = st[j] if r.random() < 0.7 else self.num(r.choice(self.STRIDES), 0.5)
        return f"{self.fill(shp, sh)}:{self.fill(shp, st)}"

    def swizzle(self) -> str:
        r = self.r
        b = r.choice([1, 2, 2, 3, 3])
        m = r.choice([0, 1, 2, 3, 3, 4])
        s = max(b, r.choice([2, 3, 3, 3, 4]))
        if r.random() < 0.15:
            s = -s
        return f"Swizzle<{b},{m},{s}>"

    def compact(self, dyn_p: float = 0.0) -> str:
        """A compact row- or column-major layout of rank 2 (sometimes 3), a typical swizzle atom."""
        r = self.r
        dims = [r.choice([4, 8, 8, 16, 32, 64]) for _ in range(r.choice([2, 2, 2, 3]))]
        order = list(range(len(dims)))
        if r.random() < 0.5:
            order.reverse()
        strides = [0] * len(dims)
        acc = 1
        for i in order:
            strides[i] = acc
            acc *= dims[i]
        sh = ",".join(self.num(d, dyn_p) for d in dims)
        st = ",".join(self.num(d, dyn_p) for d in strides)
        return f"({sh}):({st})"

    def swizzled(self, dyn_p: float = 0.0) -> str:
        return f"composition({self.swizzle()}, {self.compact(dyn_p)})"

    @staticmethod
    def rank_of(lay: str) -> int:
        shp = Parser(lay).parse()[1]
        return len(shp[1]) if shp[0] == "tuple" else 1

    def slice_of(self, sw: str, lay: str) -> str:
        """`(composition(sw, lay))(coords)`, usually with at least one `_`."""
        r = self.r
        shp = Parser(lay).parse()[1]
        modes = shp[1] if shp[0] == "tuple" else [shp]
        coords = []
        for n in modes:
            size = 1
            for leaf in (n[1] if n[0] == "tuple" else [n]):
                size *= leaf[1]
            coords.append("_" if r.random() < 0.45 else self.num(r.randrange(size), 0.5))
        if r.random() < 0.85 and "_" not in coords:
            coords[r.randrange(len(coords))] = "_"
        return f"(composition({sw}, {lay}))({','.join(coords)})"

    def case(self) -> str:
        r = self.r
        op = r.choice([
            "rinv", "rinv", "rinv", "linv", "linv", "linv", "rinv_sw", "rinv_sw", "linv_sw", "linv_sw",
            "mcv_sw", "mcv_sw", "mcv_sw2", "mcl_sw", "mcl_sw", "frag", "frag_sw", "comp_a_sw", "comp_a_swl",
            "comp_sw_b", "recast", "recast", "recast_sw", "cast_sw", "cast_sw", "slice_sw", "slice_sw",
            "slice_sw", "layout_like", "tile", "tile_sw", "coalesce", "filter", "divide", "divide",
            "complement",
        ])
        if op == "rinv":
            return f"right_inverse({self.layout()})"
        if op == "linv":
            return f"left_inverse({self.layout(dyn_p=0.15)})"
        if op in ("rinv_sw", "linv_sw"):
            name = "right_inverse" if op == "rinv_sw" else "left_inverse"
            return f"{name}({self.swizzled(0.05)})"
        if op in ("mcv_sw", "mcl_sw"):
            name = "max_common_vector" if op == "mcv_sw" else "max_common_layout"
            a = f"composition({self.swizzle()}, {self.compact(0.05)})"
            inner = a[a.index(", ") + 2 : -1]
            shape = inner.split(":")[0]
            b = r.choice([inner, f"make_layout({shape})", f"make_layout({shape}, LayoutRight)", self.compact(0.05)])
            return f"{name}({a}, {b})" if r.random() < 0.6 else f"{name}({b}, {a})"
        if op == "mcv_sw2":
            return f"max_common_vector({self.swizzled()}, {self.swizzled()})"
        if op == "frag":
            return f"make_fragment_like({self.layout()})"
        if op == "frag_sw":
            return f"make_fragment_like({self.swizzled(0.05)})"
        if op == "comp_a_sw":
            return f"composition({self.compact(0.05)}, {self.swizzle()})"
        if op == "comp_a_swl":
            return f"composition({self.compact()}, {self.swizzled()})"
        if op == "comp_sw_b":
            return f"composition({self.swizzled()}, {self.tiler() if r.random() < 0.5 else self.layout(0.15, 0.1)})"
        if op in ("recast", "recast_sw"):
            t, u = r.choice(self.TYPES), r.choice(self.TYPES)
            lay = self.layout(0.2, 0.15) if op == "recast" else self.swizzled(0.05)
            return f"recast_layout<{t},{u}>({lay})"
        if op == "cast_sw":
            return f"{r.choice(['upcast', 'downcast'])}<{r.choice([2, 4, 8])}>({self.swizzled(0.05)})"
        if op == "slice_sw":
            return self.slice_of(self.swizzle(), self.compact(0.05))
        if op == "layout_like":
            return f"make_layout_like({self.layout()})"
        if op in ("tile", "tile_sw"):
            inner = self.compact() if r.random() < 0.5 or op == "tile_sw" else self.layout(0.1, 0.1)
            rank = self.rank_of(inner)
            block = f"composition({self.swizzle()}, {inner})" if op == "tile_sw" else inner
            tgt = "(" + ",".join(self.num(r.choice([16, 32, 64, 128, 24]), 0.35) for _ in range(max(rank, 2))) + ")"
            return f"tile_to_shape({block}, {tgt})"
        if op in ("coalesce", "filter"):
            return f"{op}({self.layout(0.3, 0.7)})"
        if op == "divide":
            name = r.choice(["logical_divide", "zipped_divide", "tiled_divide", "flat_divide"])
            return f"{name}({self.layout(0.4, 0.3)}, {self.tiler()})"
        if op == "complement":
            return f"complement({self.layout(0.3, 0.5)}, {self.num(r.choice([16, 32, 64, 128]), 0.2)})"
        raise AssertionError(op)


class Fresh2Rand(FreshRand):
    """Random cases of cases-fresh2.txt (the second independent set of issue 13): the areas of
    FreshRand drawn with a different mix, plus swizzled layouts with offsets, products and divides
    of swizzled layouts, by-mode queries of swizzled layouts, tile_to_shape with orders,
    make_ordered_layout, complements with cotargets, crd2idx / idx2crd, nested divides and small
    TiledCopy / TiledMMA partitions. It only adds draws of its own: the streams of Rand and FreshRand
    (cases.txt, cases-fresh.txt) are unchanged."""

    MMAS = [
        "SM75_16x8x8_F32F16F16F32_TN", "SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x8_F32TF32TF32F32_TN",
        "SM80_8x8x4_F64F64F64F64_TN", "SM80_16x8x32_S32S8S8S32_TN", "SM80_8x8x16_S32U8U8S32_TN",
        "SM80_16x8x64_S32S4S4S32_TN", "SM80_8x8x128_S32U1U1S32_TN_XORPOPC",
    ]
    THRS = ["(_1,_1,_1):(_0,_0,_0)", "(_2,_1,_1):(_1,_0,_0)", "(_2,_2,_1):(_1,_2,_0)", "(_2,_2,_1):(_2,_1,_0)",
            "(_1,_4,_1):(_0,_1,_0)"]
    COPIES = [
        ("Copy_Atom<DefaultCopy, half_t>", 1), ("Copy_Atom<UniversalCopy<uint32_t>, half_t>", 2),
        ("Copy_Atom<UniversalCopy<uint64_t>, float>", 2), ("Copy_Atom<UniversalCopy<uint128_t>, half_t>", 8),
        ("Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, float>", 4),
        ("Copy_Atom<SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>, bfloat16_t>", 8),
    ]

    def swizzled_any(self) -> str:
        """A swizzled layout, sometimes with a static (rarely dynamic) offset."""
        r = self.r
        sw, lay = self.swizzle(), self.compact(0.05)
        k = r.random()
        if k < 0.25:
            return f"composition({sw}, _{r.choice([1, 2, 4, 8, 16, 32, 64, 128])}, {lay})"
        if k < 0.3:
            return f"composition({sw}, {r.choice([8, 16, 64])}, {lay})"
        return f"composition({sw}, {lay})"

    def shape_of(self, lay: str) -> str:
        return lay.split(":")[0] if ":" in lay else lay

    def case(self) -> str:
        r = self.r
        op = r.choice([
            "rinv", "rinv", "linv", "linv", "rinv_sw", "rinv_sw", "linv_sw", "linv_sw", "mcv_sw", "mcl_sw",
            "frag", "comp_sw_either", "comp_sw_either", "product_sw", "divide_sw", "query_sw", "query_sw",
            "slice_sw", "slice_sw", "cast", "cast", "recast", "tile_order", "ordered", "complement",
            "complement", "crd2idx", "idx2crd", "nested", "mma", "copy",
        ])
        if op == "rinv":
            return f"right_inverse({self.layout(0.35, 0.4)})"
        if op == "linv":
            return f"left_inverse({self.layout(0.2, 0.4)})"
        if op in ("rinv_sw", "linv_sw"):
            name = "right_inverse" if op == "rinv_sw" else "left_inverse"
            return f"{name}({self.swizzled_any()})"
        if op in ("mcv_sw", "mcl_sw"):
            name = "max_common_vector" if op == "mcv_sw" else "max_common_layout"
            a = self.swizzled_any()
            inner = a[a.rindex(", ") + 2 : -1]
            b = r.choice([inner, f"make_layout({self.shape_of(inner)})", f"make_layout({self.shape_of(inner)}, LayoutRight)"])
            return f"{name}({a}, {b})" if r.random() < 0.5 else f"{name}({b}, {a})"
        if op == "frag":
            return f"make_fragment_like({self.swizzled_any() if r.random() < 0.5 else self.layout(0.3, 0.4)})"
        if op == "comp_sw_either":
            k = r.random()
            if k < 0.3:
                return f"composition({self.compact(0.05)}, {self.swizzled_any()})"
            if k < 0.5:
                return f"composition({self.swizzled_any()}, {self.swizzle()})"
            if k < 0.65:
                return f"composition({self.swizzled_any()}, {self.swizzled_any()})"
            return f"composition({self.swizzled_any()}, {self.tiler() if r.random() < 0.5 else self.small_layout()})"
        if op == "product_sw":
            name = r.choice(["logical_product", "blocked_product", "raked_product"])
            if r.random() < 0.5:
                return f"{name}({self.swizzled_any()}, {self.small_layout()})"
            return f"{name}({self.small_layout()}, {self.swizzled_any()})"
        if op == "divide_sw":
            name = r.choice(["logical_divide", "zipped_divide", "tiled_divide", "flat_divide"])
            return f"{name}({self.swizzled_any()}, {self.tiler()})"
        if op == "query_sw":
            a = self.swizzled_any()
            rank = self.rank_of(a[a.rindex(", ") + 2 : -1])
            q = r.choice(["coalesce", "coalesce_p", "filter_p", "select", "get", "take", "flatten", "layout"])
            if q in ("coalesce", "flatten"):
                return f"{q}({a})"
            if q in ("coalesce_p", "filter_p"):
                prof = "(" + ",".join("_1" for _ in range(rank)) + ")"
                return f"{q[:-2]}({a}, {prof})"
            if q == "select":
                idx = [str(r.randrange(rank)) for _ in range(r.choice([1, 2]))]
                return f"select<{','.join(idx)}>({a})"
            if q == "take":
                b = r.randrange(rank)
                return f"take<{b},{r.randrange(b + 1, rank + 1)}>({a})"
            return f"{q}<{r.randrange(rank)}>({a})"
        if op == "slice_sw":
            a = self.swizzled_any()
            inner = a[a.rindex(", ") + 2 : -1]
            sl = self.slice_of("Sw", inner)  # `(composition(Sw, L))(coords)`
            return f"({a})" + sl[sl.rindex(")(") + 1 :]
        if op == "cast":
            lay = self.swizzled_any() if r.random() < 0.5 else self.layout(0.2, 0.2)
            return f"{r.choice(['upcast', 'downcast'])}<{r.choice([2, 4, 8, 16])}>({lay})"
        if op == "recast":
            t, u = r.choice(self.TYPES), r.choice(self.TYPES)
            lay = r.choice([self.swizzled_any(), self.layout(0.2, 0.2), self.swizzle()])
            return f"recast_layout<{t},{u}>({lay})"
        if op == "tile_order":
            inner = self.compact() if r.random() < 0.6 else self.layout(0.1, 0.1)
            block = f"composition({self.swizzle()}, {inner})" if r.random() < 0.4 else inner
            rank = max(self.rank_of(inner), 2)
            n = rank + (1 if r.random() < 0.3 else 0)
            tgt = "(" + ",".join(self.num(r.choice([16, 32, 64, 128]), 0.3) for _ in range(n)) + ")"
            order = list(range(n))
            r.shuffle(order)
            how = r.choice(["", ", LayoutRight", ", LayoutLeft", f", make_step({','.join(f'_{o}' for o in order)})"])
            return f"tile_to_shape({block}, {tgt}{how})"
        if op == "ordered":
            n = r.choice([2, 3, 3, 4])
            shp = "(" + ",".join(self.num(r.choice([1, 2, 3, 4, 8]), 0.3) for _ in range(n)) + ")"
            order = list(range(n))
            r.shuffle(order)
            return f"make_ordered_layout({shp}, ({','.join(self.num(o, 0.1) for o in order)}))"
        if op == "complement":
            return f"complement({self.layout(0.25, 0.4)}, {self.num(r.choice([8, 16, 24, 32, 64, 96, 128]), 0.3)})"
        if op in ("crd2idx", "idx2crd"):
            lay = self.layout(0.3, 0.3)
            under, full, size = self.coord_for(lay)
            if op == "idx2crd":
                return f"idx2crd({self.num(r.randrange(size), 0.5)}, {self.shape_of(lay)})"
            if r.random() < 0.35:
                return f"crd2idx({self.num(r.randrange(size), 0.5)}, {lay})"
            c = full[0] if len(full) == 1 else "(" + ",".join(full) + ")"
            return f"crd2idx({c}, {lay})"
        if op == "nested":
            n1, n2 = r.choice(["logical_divide", "zipped_divide", "tiled_divide"]), r.choice(["logical_divide", "zipped_divide"])
            m, n = r.choice([64, 128, 256]), r.choice([32, 64, 128])
            base = f"({self.num(m, 0.4)},{self.num(n, 0.4)}):" + r.choice([f"(_1,{self.num(m, 0.4)})", f"({self.num(n, 0.4)},_1)"])
            t1 = f"(_{r.choice([16, 32])},_{r.choice([8, 16])})"
            t2 = f"(_{r.choice([2, 4])},_{r.choice([2, 4])})"
            return f"{n2}({n1}({base}, {t1}), {t2})"
        if op == "mma":
            m = f"make_tiled_mma(MMA_Atom<{r.choice(self.MMAS)}>, {r.choice(self.THRS)})"
            meth = r.choice(["get_layoutA_TV()", "get_layoutB_TV()", "get_layoutC_TV()",
                             f"thrfrg_A({self.compact()})", f"thrfrg_B({self.compact()})", f"thrfrg_C({self.compact()})"])
            return f"{m}.{meth}"
        if op == "copy":
            atom, vec = r.choice(self.COPIES)
            thr = r.choice(["(_32,_4):(_4,_1)", "(_16,_8):(_1,_16)", "(_8,_16):(_16,_1)", "(_32,_1):(_1,_0)"])
            val = r.choice([f"(_1,_{vec}):(_0,_1)", f"(_{vec},_1):(_1,_0)"])
            tc = f"make_tiled_copy({atom}, {thr}, {val})"
            meth = r.choice(["get_layoutS_TV()", "get_layoutD_TV()", f"tidfrg_S({self.compact()})",
                             f"tidfrg_D({self.swizzled()})"])
            return f"{tc}.{meth}"
        raise AssertionError(op)


RANDOM_KINDS = {"cases": Rand, "fresh": FreshRand, "fresh2": Fresh2Rand}


def random_command(args) -> str:
    """The command line that rewrites the random section, as recorded in the case file."""
    cmd = "python3 tools/oracle/gen.py --random"
    if os.path.abspath(args.cases) != os.path.abspath(CASES):
        cmd += f" --cases {os.path.relpath(os.path.abspath(args.cases), ROOT)}"
    if args.random_kind != "cases":
        cmd += f" --random-kind {args.random_kind}"
    for e in args.existing or []:
        cmd += f" --existing {os.path.relpath(os.path.abspath(e), ROOT)}"
    return cmd + f" --seed {args.seed} --count {args.count}"


def write_random(args) -> int:
    g = RANDOM_KINDS[args.random_kind](args.seed)
    out, seen = [], set()
    known = existing_exprs(args.existing)
    with open(args.cases) as f:
        text = f.read()
    hand_text = text[: text.index(RANDOM_BEGIN)] if RANDOM_BEGIN in text else text
    hand = {norm(l) for l in hand_text.splitlines() if l.strip() and not l.lstrip().startswith("#")}
    while len(out) < args.count:
        e = g.case()
        Parser(e).parse()  # must be readable by the language's parser
        n = norm(e)
        if n in seen or n in known or n in hand:
            continue
        seen.add(n)
        out.append(e)
    block = (
        f"{RANDOM_BEGIN} ({random_command(args)}; do not edit)\n"
        + "\n".join(out)
        + f"\n{RANDOM_END}\n"
    )
    if RANDOM_BEGIN in text:
        pre = text[: text.index(RANDOM_BEGIN)]
        post = text[text.index(RANDOM_END) + len(RANDOM_END) :].lstrip("\n")
        text = pre + block + post
    else:
        text = text.rstrip("\n") + "\n\n" + block
    with open(args.cases, "w") as f:
        f.write(text)
    print(f"wrote {len(out)} random cases (seed {args.seed}) into {args.cases}", file=sys.stderr)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=CASES)
    ap.add_argument("--output", default=OUTPUT)
    ap.add_argument("--rejected", default=REJECTED)
    ap.add_argument("--existing", action="append", metavar="TSV",
                    help="skip expressions already in this TSV (repeatable; default: tests/oracle/algebra.tsv)")
    ap.add_argument("--batch", type=int, default=60, help="cases per g++ run")
    ap.add_argument("--bisect-only", action="store_true",
                    help="find failing cases by bisection only, not from the compiler's line numbers")
    ap.add_argument("--random", action="store_true", help="rewrite the random section of cases.txt")
    ap.add_argument("--random-kind", choices=sorted(RANDOM_KINDS), default="cases",
                    help="random generator: 'cases' (cases.txt), 'fresh' (cases-fresh.txt, biased to issue 13) "
                         "or 'fresh2' (cases-fresh2.txt, the second set of issue 13)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--count", type=int, default=150)
    ap.add_argument("--translate", metavar="EXPR", help="print the C++ for EXPR and exit")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if args.translate:
        print(translate(args.translate))
        return 0
    if args.random:
        return write_random(args)
    return generate(args)


if __name__ == "__main__":
    sys.exit(main())
