"""tests/regression/tests.yaml: groups of regression tests. Every mistake in
the list is an error that names the file, line and key, as sus does for decks."""
import dataclasses
import difflib
import math
import pathlib
import re
import struct

import yaml

SCHEDULERS = ("host", "sync", "async")
TEST_KEYS = ("name", "deck", "ranks", "threads", "scheduler", "options", "overrides", "tolerance",
             "no_restart", "no_gold", "record_only", "gold", "timeout")
DEFAULT_KEYS = tuple(k for k in TEST_KEYS if k not in ("name", "gold"))
# `shared` holds YAML anchors that tests merge in with `<<: *name`.
TOP_KEYS = ("shared", "defaults", "margins", "groups")
MARGIN_KEYS = ("wall_time", "memory", "wall_time_floor_seconds")
# Deck keys the harness sets itself (the run directory), and sus options that
# would bypass the list's own keys.
RESERVED_OVERRIDES = ("output.dir",)
RESERVED_OPTIONS = ("--set", "--scheduler", "--nthreads", "--threads", "--record", "--restart",
                    "--checkpoint", "--quiet", "--validate")
NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class ListError(Exception):
    """A mistake in the test list, as FILE:LINE:COLUMN: message."""


@dataclasses.dataclass(frozen=True)
class Tolerance:
    exact: bool = True
    absolute: float = 0.0
    relative: float = 0.0

    def compare_args(self):
        """tessera-compare's options for this tolerance."""
        if self.exact:
            return ["--exact"]
        return ["--abs", repr(self.absolute), "--rel", repr(self.relative)]

    def differ(self, a, b):
        """The comparer's rule: different when beyond both tolerances (or bitwise, when exact)."""
        if a is None or b is None:
            return (a is None) != (b is None)
        if self.exact:  # the bits: -0.0 differs from 0.0, a NaN equals itself
            return struct.pack("<d", a) != struct.pack("<d", b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) != math.isnan(b)
        gap = abs(a - b)
        return gap > self.absolute and gap > self.relative * max(abs(a), abs(b))

    def describe(self):
        return "bitwise" if self.exact else f"abs {self.absolute:g}, rel {self.relative:g}"


@dataclasses.dataclass(frozen=True)
class RegressionTest:
    name: str
    group: str
    deck: pathlib.Path
    ranks: int
    threads: int
    scheduler: str
    options: tuple
    overrides: tuple  # "KEY=VALUE" strings, as sus --set takes them
    tolerance: Tolerance
    no_restart: bool
    no_gold: bool
    timeout: float
    gold: str  # whose gold standard: its own name, or another test's (the same problem run otherwise)
    # The run writes no archive (a component whose state is not archived):
    # its gold standard is the run record alone, and it has no restart.
    record_only: bool = False

    @property
    def processors(self):
        return self.ranks * self.threads


@dataclasses.dataclass(frozen=True)
class Margins:
    """How much slower or bigger than the stored values a run may be before
    the table warns (timing on shared machines is noisy: never a failure)."""
    wall_time: float = 0.5  # fraction: +50 %
    memory: float = 0.25
    wall_time_floor_seconds: float = 1.0  # differences below this are noise


@dataclasses.dataclass
class TestList:
    path: pathlib.Path
    groups: dict  # group -> [RegressionTest]
    margins: Margins

    def all_tests(self):
        return [t for tests in self.groups.values() for t in tests]

    def select(self, groups, only):
        """The tests of `groups` (all groups when `only` names tests and no group was given)."""
        for group in groups:
            if group not in self.groups:
                raise ListError(f"{self.path}: no group '{group}'{suggest(group, self.groups)} "
                                f"(groups: {', '.join(self.groups)})")
        pool = [t for g in groups for t in self.groups[g]] if groups else self.all_tests()
        if not only:
            return pool
        by_name = {t.name: t for t in pool}
        missing = [n for n in only if n not in by_name]
        if missing:
            where = f"group {', '.join(groups)}" if groups else "the list"
            raise ListError(f"{self.path}: no test '{missing[0]}' in {where}"
                            f"{suggest(missing[0], by_name)}")
        return [by_name[n] for n in only]


def suggest(word, known):
    close = difflib.get_close_matches(word, list(known), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


class _Reader:
    """Walks the composed YAML nodes, so that every error can name its line."""

    def __init__(self, path):
        self.path = path

    def error(self, node, message):
        mark = node.start_mark
        return ListError(f"{self.path}:{mark.line + 1}:{mark.column + 1}: {message}")

    def mapping(self, node, what, known):
        if not isinstance(node, yaml.MappingNode):
            raise self.error(node, f"{what} must be a mapping")
        entries = {}
        merged = []
        for key_node, value_node in node.value:
            key = key_node.value
            if key_node.tag == "tag:yaml.org,2002:merge":
                # `<<: *anchor` (or a list of them): the anchor's keys, unless given here.
                sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                for source in sources:
                    merged.append(self.mapping(source, what, known))
                continue
            if key not in known:
                raise self.error(key_node, f"unknown key '{key}' in {what}{suggest(key, known)} "
                                           f"(known: {', '.join(known)})")
            if key in entries:
                raise self.error(key_node, f"key '{key}' given twice in {what}")
            entries[key] = (key_node, value_node)
        for extra in merged:
            for key, entry in extra.items():
                entries.setdefault(key, entry)
        return entries

    def scalar(self, node, key):
        if not isinstance(node, yaml.ScalarNode):
            raise self.error(node, f"'{key}' must be a single value")
        return yaml.safe_load(yaml.serialize(node))

    def integer(self, node, key, lowest):
        value = self.scalar(node, key)
        if not isinstance(value, int) or isinstance(value, bool) or value < lowest:
            raise self.error(node, f"'{key}' must be an integer >= {lowest}, got '{node.value}'")
        return value

    def number(self, node, key, positive=False):
        value = self.scalar(node, key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 \
                or (positive and value == 0):
            bound = "> 0" if positive else ">= 0"
            raise self.error(node, f"'{key}' must be a number {bound}, got '{node.value}'")
        return float(value)

    def flag(self, node, key):
        value = self.scalar(node, key)
        if not isinstance(value, bool):
            raise self.error(node, f"'{key}' must be true or false, got '{node.value}'")
        return value

    def strings(self, node, key):
        if not isinstance(node, yaml.SequenceNode):
            raise self.error(node, f"'{key}' must be a list")
        return [str(self.scalar(item, key)) for item in node.value]


def render_value(value):
    """A YAML value as sus --set takes it: [4,2,2], true, 0.0100000001, text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ",".join(render_value(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def load(path, repo_root):
    path = pathlib.Path(path)
    try:
        root = yaml.compose(path.read_text())
    except OSError as e:
        raise ListError(f"{path}: cannot read the test list: {e.strerror}")
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise ListError(f"{where}: not valid YAML: {getattr(e, 'problem', e)}")
    reader = _Reader(path)
    if root is None:
        raise ListError(f"{path}: the test list is empty")
    top = reader.mapping(root, "the test list", TOP_KEYS)
    if "groups" not in top:
        raise reader.error(root, "the test list has no 'groups'")

    margins = Margins()
    if "margins" in top:
        given = reader.mapping(top["margins"][1], "'margins'", MARGIN_KEYS)
        margins = Margins(**{k: reader.number(v, k) for k, (_, v) in given.items()})

    defaults = {}
    if "defaults" in top:
        defaults = reader.mapping(top["defaults"][1], "'defaults'", DEFAULT_KEYS)

    groups_node = top["groups"][1]
    groups = {}
    seen = {}
    for group_key, tests_node in reader.mapping(groups_node, "'groups'", _AnyKey()).values():
        group = group_key.value
        if not isinstance(tests_node, yaml.SequenceNode) or not tests_node.value:
            raise reader.error(tests_node, f"group '{group}' must be a non-empty list of tests")
        tests = []
        for test_node in tests_node.value:
            test = _read_test(reader, test_node, group, defaults, repo_root)
            if test.name in seen:
                raise reader.error(test_node, f"test '{test.name}' is listed twice "
                                              f"(also at line {seen[test.name]})")
            seen[test.name] = test_node.start_mark.line + 1
            tests.append(test)
        groups[group] = tests
    for tests in groups.values():
        for test in tests:
            if test.gold != test.name and test.gold not in seen:
                raise ListError(f"{path}: test '{test.name}' shares the gold standard of "
                                f"'{test.gold}', which is not in the list{suggest(test.gold, seen)}")
    return TestList(path, groups, margins)


class _AnyKey(tuple):
    """Group names are the user's own: every key is known."""

    def __contains__(self, item):
        return True


def _read_test(reader, node, group, defaults, repo_root):
    given = reader.mapping(node, f"a test of group '{group}'", TEST_KEYS)
    if "name" not in given:
        raise reader.error(node, f"a test of group '{group}' has no 'name'")
    name = str(reader.scalar(given["name"][1], "name"))
    if not NAME.match(name):
        raise reader.error(given["name"][1], f"test name '{name}' may hold only letters, digits, "
                                             "'_', '.' and '-' (it names a folder)")
    where = f"test '{name}'"

    def value(key):
        """(key node, value node) from the test, else from the defaults, else None."""
        return given.get(key) or defaults.get(key)

    if value("deck") is None:
        raise reader.error(node, f"{where} has no 'deck'")
    deck_node = value("deck")[1]
    deck = (repo_root / str(reader.scalar(deck_node, "deck"))).resolve()
    if not deck.is_file():
        raise reader.error(deck_node, f"{where}: no deck '{deck_node.value}' (paths are relative "
                                      "to the repository)")
    ranks = reader.integer(value("ranks")[1], "ranks", 1) if value("ranks") else 1
    threads = reader.integer(value("threads")[1], "threads", 1) if value("threads") else 1
    scheduler = "async"
    if value("scheduler"):
        scheduler = str(reader.scalar(value("scheduler")[1], "scheduler"))
        if scheduler not in SCHEDULERS:
            raise reader.error(value("scheduler")[1],
                               f"{where}: unknown scheduler '{scheduler}'{suggest(scheduler, SCHEDULERS)} "
                               f"(known: {', '.join(SCHEDULERS)})")
    options = []
    if value("options"):
        options = reader.strings(value("options")[1], "options")
        for option in options:
            if option.split("=", 1)[0] in RESERVED_OPTIONS:
                raise reader.error(value("options")[1],
                                   f"{where}: option '{option}' is set by the harness or by a key "
                                   "of the list (overrides, scheduler, threads)")
    overrides = {}
    for source in (defaults.get("overrides"), given.get("overrides")):
        if source is None:
            continue
        mapping = reader.mapping(source[1], f"the overrides of {where}", _AnyKey())
        for key, (key_node, value_node) in mapping.items():
            if key in RESERVED_OVERRIDES:
                raise reader.error(key_node, f"{where}: '{key}' is set by the harness (each test "
                                             "writes into its own folder)")
            overrides[key] = render_value(yaml.safe_load(yaml.serialize(value_node)))
    tolerance = Tolerance()
    if value("tolerance"):
        tolerance = _read_tolerance(reader, value("tolerance")[1], where)
    no_restart = reader.flag(value("no_restart")[1], "no_restart") if value("no_restart") else False
    no_gold = reader.flag(value("no_gold")[1], "no_gold") if value("no_gold") else False
    record_only = reader.flag(value("record_only")[1], "record_only") if value("record_only") else False
    if record_only:
        no_restart = True
    timeout = reader.number(value("timeout")[1], "timeout", positive=True) if value("timeout") else 300.0
    gold = name
    if "gold" in given:
        gold = str(reader.scalar(given["gold"][1], "gold"))
        if no_gold or not NAME.match(gold):
            raise reader.error(given["gold"][1], f"{where}: 'gold' names another test whose gold "
                                                 "standard this one shares (and not with no_gold)")
    return RegressionTest(name, group, deck, ranks, threads, scheduler, tuple(options),
                          tuple(f"{k}={v}" for k, v in overrides.items()), tolerance,
                          no_restart, no_gold, timeout, gold, record_only)


def _read_tolerance(reader, node, where):
    if isinstance(node, yaml.ScalarNode):
        if node.value != "exact":
            raise reader.error(node, f"{where}: tolerance must be 'exact' or a mapping with "
                                     f"'abs' and/or 'rel', got '{node.value}'")
        return Tolerance()
    given = reader.mapping(node, f"the tolerance of {where}", ("abs", "rel"))
    if not given:
        raise reader.error(node, f"{where}: give 'abs', 'rel' or both (or 'exact')")
    # Like tessera-compare: values differ when beyond both; an absent one does not excuse.
    absolute = reader.number(given["abs"][1], "abs") if "abs" in given else 0.0
    relative = reader.number(given["rel"][1], "rel") if "rel" in given else 0.0
    return Tolerance(False, absolute, relative)
