"""The one page `reports/REPORT.md` (issue 54): each paper's headline claims are registered reproductions, every claim
experiment names its notebook, and the committed page takes each claim from its most faithful committed run."""
import json, re
from pathlib import Path
from tpr_nb.claims import CLAIMS, HEADLINE, evidence
from tpr_nb.papers import PAPERS
from tpr_nb.overview import PROFILE_ORDER

ROOT = Path(__file__).resolve().parents[1]

def test_headline_claims_are_registered_reproductions():
    for p in PAPERS.values():
        ids = {c.claim_id: c for c in CLAIMS if c.paper == p.id}
        assert p.headline, f"{p.id} has no headline claims"
        bad = [h for h in p.headline if h not in ids or evidence(ids[h]) not in HEADLINE]
        assert bad == [], f"{p.id}: {bad}"

def test_every_claim_experiment_names_its_notebook():
    for p in PAPERS.values():
        missing = sorted({c.experiment for c in CLAIMS if c.paper == p.id} - set(p.measured_in))
        assert missing == [], f"{p.id}: {missing}"

def test_the_committed_page_takes_each_claim_from_its_most_faithful_run():
    "Each claim row of reports/REPORT.md names the first of full, long, quick whose committed records measure it."
    page = (ROOT / "reports" / "REPORT.md").read_text()
    have = {}
    # later (more faithful) profiles overwrite
    for prof in reversed(PROFILE_ORDER):
        for f in (ROOT / "reports" / prof / "metrics").glob("*.json"):
            for r in json.loads(f.read_text()):
                if r["profile"] == prof and not r.get("partial"):
                    have[(r["paper"], r["claim_id"])] = prof
    sections = dict(re.findall(r"^## (\w+)\n(.*?)(?=^## |\Z)", page, re.S | re.M))
    checked = 0
    for (paper, cid), prof in have.items():
        rows = [
            l for l in sections[paper].splitlines()
            if l.startswith(f"| {cid} |") or f"| {cid} |" in l[:80]
        ]
        assert rows, f"{paper} {cid} is not on the page"
        # the profile, flagged where its executed copy ran on code older than its notebook's
        assert re.search(rf"\| {prof}( \(older code\))? \|", rows[0]), (
            f"{paper} {cid}: expected from {prof}: {rows[0]}")
        checked += 1
    assert checked > 100
