"""The Transition type every resource table is made of, plus checks and a human description.

A transition names the statuses a resource may leave, the status it holds while the work runs,
and where it lands on success and on error. Guards are names (`not_attached`) that db/ maps to
SQL predicates, so the whole precondition is one UPDATE … WHERE.
"""

import dataclasses

# on_success / on_error value meaning "the status saved in previous_status when the work began".
PREVIOUS = '<previous_status>'
# allowed_from value meaning "any status" (admin actions such as force-delete, reset-status).
ANY = frozenset({'*'})
# The status a soft-deleted row is left with (every resource, as Cinder's).
DELETED = 'deleted'


@dataclasses.dataclass(frozen=True)
class Transition:
    """One action of a resource's state machine."""

    allowed_from: frozenset[str]
    in_progress: str | None = None
    on_success: str | None = None
    on_error: str | None = None
    guards: tuple[str, ...] = ()
    # True when in_progress must remember where it came from (previous_status column).
    saves_previous: bool = False

    def allows(self, status: str | None) -> bool:
        return self.allowed_from is ANY or status in self.allowed_from

    def expected_text(self) -> str:
        """The allowed statuses as Cinder words them in its 400 messages."""
        if self.allowed_from is ANY:
            return 'any'
        return ', '.join(sorted(s for s in self.allowed_from if s is not None))


def describe(name: str, transitions: dict[str, Transition]) -> str:
    """A Markdown table of *transitions*, for the docs and for reviewers."""
    lines = [f'### {name}', '', '| action | from | during | success | error | guards |',
             '|---|---|---|---|---|---|']
    for action, tr in sorted(transitions.items()):
        lines.append(f'| {action} | {tr.expected_text()} | {tr.in_progress or "-"} | '
                     f'{tr.on_success or "-"} | {tr.on_error or "-"} | '
                     f'{", ".join(tr.guards) or "-"} |')
    return '\n'.join(lines)
