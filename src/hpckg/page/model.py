"""What a system page shows, as plain dataclasses: read from the graph by `hpckg.page.read`, turned into
Markdown or HTML by `hpckg.page.markdown` and `hpckg.page.html`. Every figure keeps its claim's IRI, tier,
basis and sources so any rendering can show where it came from and how sure the dataset is of it."""

from __future__ import annotations

from dataclasses import dataclass, field

ABSENT = "-"


@dataclass(frozen=True)
class Link:
    """Something to show with a link: a label and an IRI or URL (href None shows the text only), and a note
    shown after it in a list."""

    text: str
    href: str | None = None
    note: str = ""


@dataclass(frozen=True)
class Tier:
    """A confidence tier: its concept IRI, label (from the vocabulary) and hpc:tierRank."""

    iri: str
    label: str
    rank: int


@dataclass(frozen=True)
class SourceLink:
    """A cited source: its IRI, the page URL when it has one, the host shown on pages and its title."""

    iri: str
    url: str | None
    host: str
    title: str | None = None

    @property
    def href(self) -> str:
        return self.url or self.iri


@dataclass
class Figure:
    """One claimed value as a page shows it: `text` is the formatted value ('2,416', 'more than 10,000',
    '-' when absent), `unit` its unit symbol from the ontology, `entity` the IRI when the value is one."""

    text: str = ABSENT
    unit: str = ""
    claim: str | None = None
    entity: str | None = None
    tier: Tier | None = None
    basis: Link | None = None
    as_of: str | None = None
    note: str | None = None
    sources: tuple[SourceLink, ...] = ()
    url: str | None = None  # an external identifier's link (the property's hpc:formatterURL with $1 filled)
    lead: bool = False
    machine_generated: bool = False
    value: object = None

    @property
    def present(self) -> bool:
        return self.claim is not None or self.text != ABSENT

    @property
    def display(self) -> str:
        """The value with its unit ('12,288 accelerators'); '-' alone when absent."""
        if not self.present or not self.unit:
            return self.text
        if self.unit == "%":
            return f"{self.text} %"
        return f"{self.text} {self.unit}"


@dataclass
class Row:
    """A labelled figure: one line of measured performance, AI datacenter metrics or facts."""

    label: str
    figure: Figure
    property: str | None = None


@dataclass
class ComponentRow:
    """One row of 'What this machine is made of'."""

    iri: str
    role: Link
    part: Link | None
    detail: str | None
    specs: list[str]
    supplier: Link | None
    supplier_parent: Link | None
    maker: Link | None
    maker_parent: Link | None
    quantities: list[Figure]
    nodes: Figure
    per_node: Figure
    tier: Tier | None
    sources: tuple[SourceLink, ...]
    lead: bool = False
    figures: list[Figure] = field(default_factory=list)
    # the row's other claims, as "label: value" lines (a topology, further details); machine-generated ones
    # are marked in the text
    details: list[str] = field(default_factory=list)
    machine_generated: bool = False  # some figure of the row comes from machine-generated analysis
    part_figure: Figure | None = None  # the claims naming the part and the supplier, for their tier badges
    supplier_figure: Figure | None = None

    @property
    def layout(self) -> str | None:
        """'302 nodes × 8' when both the node count and the per-node count are claimed."""
        if self.nodes.present and self.per_node.present:
            return f"{self.nodes.text} nodes × {self.per_node.text}"
        return None


@dataclass
class TimelineEvent:
    date: str
    label: str
    figure: Figure


@dataclass
class ChangeEntry:
    iri: str
    date: str
    text: str


@dataclass
class SourceCheckRow:
    iri: str
    source: SourceLink | None
    result: str
    passes: bool | None
    terms: list[str]
    counts: list[str]
    checked: str | None
    command: str | None
    software: Link | None = None
    result_iri: str | None = None


@dataclass
class Preamble:
    """The dataset-level paragraph every page opens with, from the hpc:Dataset claims."""

    dataset: str | None = None
    description: str | None = None
    system_count: Figure = field(default_factory=Figure)
    with_naming_citation: Figure = field(default_factory=Figure)
    weakly_sourced: Figure = field(default_factory=Figure)


@dataclass
class SameMachine:
    """Another record of this machine (an hpc:sameMachineAs claim either way): the record by its title, its
    dataset's name, the link claim (tier, basis, note, sources), whether the link makes the two one machine
    (reported or better, not machine-generated; else a lead, "may be the same machine as"), and, on the
    machine's page, that record's own page, shown as what its dataset says."""

    record: Link
    dataset: str
    figure: Figure
    confirmed: bool
    page: SystemPage | None = None


@dataclass
class Listing:
    """One TOP500 edition a system is listed in: the edition's date (YYYY-MM) and name, its rank and Rmax."""

    date: str
    edition: str
    rank: int | None = None
    rmax: Figure | None = None


@dataclass
class SystemPage:
    """Everything a system page shows."""

    iri: str
    label: str
    slug: str | None = None
    aliases: list[str] = field(default_factory=list)
    country: Figure = field(default_factory=Figure)
    status: Figure = field(default_factory=Figure)
    kind: Figure = field(default_factory=Figure)
    operator: Figure = field(default_factory=Figure)
    site: Figure = field(default_factory=Figure)  # where it sits: its best site claim
    preamble: Preamble = field(default_factory=Preamble)
    performance: list[Row] = field(default_factory=list)
    components: list[ComponentRow] = field(default_factory=list)
    metrics: list[Row] = field(default_factory=list)
    facts: list[Row] = field(default_factory=list)
    read: str | None = None
    timeline: list[TimelineEvent] = field(default_factory=list)
    changes: list[ChangeEntry] = field(default_factory=list)
    checks: list[SourceCheckRow] = field(default_factory=list)
    citation_threshold: Tier | None = None
    sources: list[SourceLink] = field(default_factory=list)
    dataset: str | None = None  # the name of the dataset this record is from ("TOP500", "Epoch AI")
    same_machine: list[SameMachine] = field(default_factory=list)
    machine_page: Link | None = None  # another record's page is this machine's page
    listings: list[Listing] = field(default_factory=list)  # its TOP500 editions, oldest first
    same_address: list[Link] = field(default_factory=list)  # sites giving the system's own address

    @property
    def also(self) -> list[SameMachine]:
        """The records of this machine whose claims this page shows too."""
        return [link for link in self.same_machine if link.page is not None]

    @property
    def may_be(self) -> list[SameMachine]:
        """The leads: records that may be this machine."""
        return [link for link in self.same_machine if not link.confirmed]

    @property
    def figures(self) -> list[Figure]:
        """Every claimed figure on the page, for callers that list claims with their tiers and sources."""
        found = [self.country, self.status, self.kind, self.operator, self.site]
        found += [row.figure for row in self.performance + self.metrics + self.facts]
        for component in self.components:
            found += component.figures
        found += [event.figure for event in self.timeline]
        return [figure for figure in found if figure.claim]
