package decide

import "fmt"

// Audit signals.
const (
	AuditPassed      = "audit_passed"
	AuditResult      = "audit_result"
	AuditFixRequired = "fix_required"
)

// decideAudit applies DESIGN §2.3.
func decideAudit(in Input, d *Decision) error {
	af := in.Evidence.Audit
	if af == nil && len(d.Findings) == 0 {
		return noDecision("no audit evidence in %s: re-run the audit (want a tasks.csv AUDIT row, the audit report or issue_found discoveries)", sourcesOf(in.Evidence))
	}
	if af == nil {
		af = &AuditFacts{}
	}
	d.Prose = af.Summary
	d.Dimensions = af.Dimensions
	d.Score = af.Score
	c := d.Counts
	signal, from := af.Signal, af.SignalFrom
	switch {
	case signal == "" && af.Score != nil:
		s := *af.Score
		switch {
		case s >= 8 && c.Critical == 0:
			signal = AuditPassed
		case s >= 6 && c.Critical == 0:
			signal = AuditResult
		default:
			signal = AuditFixRequired
		}
		from = "derived from score " + fmtNum(s)
		d.Notes = append(d.Notes, fmt.Sprintf("audit signal missing: derived %s from score %s%s and %d critical finding(s)", signal, fmtNum(s), cite(af.ScoreFrom), c.Critical))
	case signal == "":
		signal, from = AuditFixRequired, "no usable signal or score"
		d.Notes = append(d.Notes, "anomaly: the audit gave neither a usable signal nor a score: counted as fix_required")
	case signal != AuditFixRequired && c.Critical > 0:
		d.Notes = append(d.Notes, fmt.Sprintf("inconsistent audit: signal %s%s with %d critical finding(s): counted as fix_required", signal, cite(from), c.Critical))
		signal, from = AuditFixRequired, "critical findings"
	}
	d.Signal = signal
	line := "audit signal " + signal + cite(from)
	if af.Score != nil {
		line += fmt.Sprintf(", score %s/10%s", fmtNum(*af.Score), cite(af.ScoreFrom))
	}
	d.Reasons = append(d.Reasons, line)
	if blocking := bySeverity(d.Findings, Critical, High); len(blocking) > 0 {
		d.Reasons = append(d.Reasons, fmt.Sprintf("%d critical, %d high finding(s): %s", c.Critical, c.High, citeFindings(blocking)))
	}
	switch {
	case signal == AuditPassed:
		d.Outcome, d.Verdict = Converge, "CONVERGE"
	case signal == AuditResult && in.Config.AuditPartial != "revise":
		d.Outcome, d.Verdict, d.Advisory = Converge, "CONVERGE (advisory)", true
		addOpenFindings(d)
	default:
		if signal == AuditResult {
			d.Reasons = append(d.Reasons, "audit_result with audit.partial: revise asks for a revision")
		}
		fixOrEscalate(d, "REVISION", "ESCALATE")
	}
	return nil
}
