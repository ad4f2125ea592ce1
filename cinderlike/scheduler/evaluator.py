"""The filter_function / goodness_function language of Cinder's evaluator, without eval().

The scheduler compiles each backend's expression once (cached by text) into a tree of
closures; DriverFilter and GoodnessWeigher then call it with the stats/capabilities/volume/
qos/extra dicts of one pool and one request.
"""

import functools
import operator
import re

from cinderlike import exception

_TOKEN = re.compile(r'''
    \s*(?:
      (?P<num>\d+\.\d+|\d+)
    | (?P<str>"[^"]*"|'[^']*')
    | (?P<word>[A-Za-z_.]+)
    | (?P<op><=|>=|!=|==|<>|&&|\|\||[-+*/^<>!?:,()])
    )''', re.VERBOSE)
_VARIABLE = re.compile(r'^[a-zA-Z_]+\.[a-zA-Z_]+$')
_FUNCTIONS = {'abs': abs, 'max': max, 'min': min}
_COMPARISONS = {'<': operator.lt, '<=': operator.le, '>': operator.gt, '>=': operator.ge,
                '!=': operator.ne, '==': operator.eq, '<>': operator.ne}
_KEYWORDS = {'AND': '&&', 'and': '&&', 'OR': '||', 'or': '||', 'NOT': '!', 'not': '!'}


def _error(reason):
    return exception.EvaluatorParseException(reason=reason)


def _tokenize(text):
    tokens, pos, text = [], 0, text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise _error(f'ParseException: unexpected {text[pos:pos + 10]!r} at char {pos}')
        pos = m.end()
        kind = m.lastgroup
        value = m.group(kind)
        if kind == 'word' and value in _KEYWORDS:
            kind, value = 'op', _KEYWORDS[value]
        tokens.append((kind, value))
    return tokens


def _constant(text):
    """Cinder's EvalConstant: look up obj.attr, then try int(), then float(), else unquote."""
    is_var = _VARIABLE.match(text) is not None
    which, _, entry = text.partition('.')

    def value(ns):
        result = text
        if is_var:
            try:
                result = ns[which][entry]
            except KeyError:
                raise _error('KeyError evaluating string') from None
            except TypeError:
                raise _error('TypeError evaluating string') from None
        # NOTE(evaluator): like Cinder, int() comes first, so a float variable is truncated
        # (int(7.9) == 7) and a quoted number stays a string.
        try:
            return int(result)
        except ValueError:
            try:
                return float(result)
            except ValueError:
                return result.replace('"', '').replace("'", '') if isinstance(result, str) \
                    else result
    return value


class _Parser:
    """Recursive descent over Cinder's precedence (lowest first):
    `,` → OR → AND → ternary → comparisons → NOT → + - → * / → unary sign → ^ → f(...)."""

    def __init__(self, tokens):
        self.tokens, self.pos = tokens, 0

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else (None, None)

    def take(self, value=None):
        tok = self.peek()
        if tok[0] is None or (value is not None and tok != ('op', value)):
            raise _error(f'ParseException: expected {value!r}, found {tok[1]!r}')
        self.pos += 1
        return tok

    def at(self, *ops):
        kind, value = self.peek()
        return kind == 'op' and value in ops

    def parse(self):
        node = self.comma()
        if self.pos != len(self.tokens):
            raise _error(f'ParseException: unexpected {self.peek()[1]!r}')
        return node

    def comma(self):
        first = self.boolean_or()
        if not self.at(','):
            return first
        self.take(',')
        rest = self.comma()  # right-associative: a, (b, c) flattens to [a, b, c]

        def as_list(ns):
            tail = rest(ns)
            return [first(ns)] + (tail if type(tail) is list else [tail])
        return as_list

    def _fold(self, ops, sub, combine):
        node = sub()
        while self.at(*ops):
            op = self.take()[1]
            node = combine(op, node, sub())
        return node

    def boolean_or(self):
        return self._fold(('||',), self.boolean_and,
                          lambda op, a, b: lambda ns: a(ns) or b(ns))

    def boolean_and(self):
        return self._fold(('&&',), self.ternary,
                          lambda op, a, b: lambda ns: a(ns) and b(ns))

    def ternary(self):
        node = self.comparison()
        while self.at('?'):
            self.take('?')
            yes = self.comparison()
            self.take(':')
            no = self.comparison()
            node = (lambda c, y, n: lambda ns: y(ns) if c(ns) else n(ns))(node, yes, no)
        return node

    def comparison(self):
        first = self.negation()
        chain = []
        while self.at(*_COMPARISONS):
            chain.append((_COMPARISONS[self.take()[1]], self.negation()))
        if not chain:
            return first

        def compare(ns):
            left = first(ns)
            for fn, operand in chain:
                right = operand(ns)
                if not fn(left, right):
                    return False
                left = right
            return True
        return compare

    def negation(self):
        if self.at('!'):
            self.take()
            inner = self.negation()
            return lambda ns: not inner(ns)
        return self.additive()

    def additive(self):
        return self._fold(('+', '-'), self.multiplicative,
                          lambda op, a, b: (lambda ns: a(ns) + b(ns)) if op == '+'
                          else (lambda ns: a(ns) - b(ns)))

    def multiplicative(self):
        return self._fold(('*', '/'), self.sign, _multiply)

    def sign(self):
        if self.at('+', '-'):
            factor = 1 if self.take()[1] == '+' else -1
            inner = self.sign()
            return lambda ns: factor * inner(ns)
        return self.power()

    def power(self):
        base = self.function()
        if not self.at('^'):
            return base
        self.take('^')
        exponent = self.sign()  # right-associative, and 2^-1 is allowed
        return lambda ns: pow(base(ns), exponent(ns))

    def function(self):
        kind, value = self.peek()
        if kind == 'word' and value in _FUNCTIONS and self._next_is_paren():
            self.take()
            fn, args = _FUNCTIONS[value], self.function()
            return lambda ns: (lambda a: fn(*a) if type(a) is list else fn(a))(args(ns))
        return self.atom()

    def _next_is_paren(self):
        nxt = self.tokens[self.pos + 1] if self.pos + 1 < len(self.tokens) else None
        return nxt == ('op', '(')

    def atom(self):
        kind, value = self.take()
        if kind == 'op' and value == '(':
            node = self.comma()
            self.take(')')
            return node
        if kind == 'op':
            raise _error(f'ParseException: unexpected {value!r}')
        return _constant(value)


def _multiply(op, a, b):
    if op == '*':
        return lambda ns: a(ns) * b(ns)

    def divide(ns):
        left, right = a(ns), float(b(ns))
        if right == 0:
            raise _error('ZeroDivisionError: float division by zero')
        return left / right
    return divide


class Expression:
    """A compiled expression; `evaluate(**namespaces)` may raise EvaluatorParseException."""

    __slots__ = ('text', '_root')

    def __init__(self, text, root):
        self.text, self._root = text, root

    def evaluate(self, **namespaces):
        try:
            return self._root(namespaces)
        except exception.EvaluatorParseException:
            raise
        except (TypeError, ValueError, ArithmeticError, AttributeError) as exc:
            raise _error(f'{type(exc).__name__}: {exc}') from exc

    def __repr__(self):
        return f'Expression({self.text!r})'


@functools.lru_cache(maxsize=4096)
def compile_expression(text: str) -> Expression:
    """Parse *text* once; backends that report the same function share the result.

    :raises: EvaluatorParseException when the text does not parse.
    """
    tokens = _tokenize(str(text))
    if not tokens:
        raise _error('ParseException: empty expression')
    return Expression(text, _Parser(tokens).parse())


def evaluate(text: str, **namespaces):
    """Compile (cached) and evaluate in one call."""
    return compile_expression(text).evaluate(**namespaces)
