package feed

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/gcloop/gcloop/bot/event"
)

// History is the answer of GET /api/loops/{owner}/{repo}/{pr}: the loops
// of one pull request and their rounds, folded from the retained event
// log.
//
//	{"repo":"o/r","pr":7,"loops":[{"loop":"review","rounds":[
//	  {"round":1,"sha":"…","run":123,"run_attempt":1,"state":"decided",
//	   "decision":"fix","verdict":"FIX","status":"complete",
//	   "counts":{"critical":0,"high":2,"medium":1,"low":0},
//	   "movement":{"previous":1,"fixed":1,"new":0,"persisting":1,"since":1},
//	   "actor":"dev","started":"RFC3339","ended":"RFC3339",
//	   "duration_seconds":450,"decided":"RFC3339","event":42}],
//	 "current":null}]}
type History struct {
	Repo  string        `json:"repo"`
	PR    int           `json:"pr"`
	Loops []LoopHistory `json:"loops"`
}

// LoopHistory is one loop id's rounds on the pull request, in round order:
// each round as its last decision left it (a re-run replaces it, as in the
// loop's state). Current is a round that started after the last decision
// and has not decided (state running) or failed (state failed); null
// otherwise.
type LoopHistory struct {
	Loop    string     `json:"loop"`
	Rounds  []RoundRow `json:"rounds"`
	Current *RoundRow  `json:"current"`
}

// RoundRow is one round of a loop.
type RoundRow struct {
	// Round is the round's number; 0 for a Current round not decided yet.
	Round      int    `json:"round"`
	SHA        string `json:"sha"`
	Run        int64  `json:"run,omitempty"`
	RunAttempt int    `json:"run_attempt,omitempty"`
	// State is running, decided or failed.
	State    string  `json:"state"`
	Decision string  `json:"decision"`
	Verdict  string  `json:"verdict"`
	Status   string  `json:"status"`
	Counts   *Counts `json:"counts"`
	// Movement is how the round's blocking findings moved against the
	// round before, when the decision event carries it; null otherwise.
	Movement *Movement `json:"movement"`
	Actor    string    `json:"actor"`
	// Started and Ended bound the round: the critic's workflow run when the
	// round judged one, else when the bot began and decided it. Duration
	// is Ended − Started in seconds; null when either is unknown.
	Started  *time.Time `json:"started"`
	Ended    *time.Time `json:"ended"`
	Duration *float64   `json:"duration_seconds"`
	// Decided is when the decision was logged; null before it.
	Decided *time.Time `json:"decided"`
	Error   string     `json:"error,omitempty"`
	// Event is the id of the round's newest event.
	Event int64 `json:"event"`
}

// Movement is how a round's blocking findings and failing tests moved
// since the round before (Previous): fixed, new and persisting ones, and
// the earliest round a persisting one was first seen in (0 when none).
type Movement struct {
	Previous   int `json:"previous"`
	Fixed      int `json:"fixed"`
	New        int `json:"new"`
	Persisting int `json:"persisting"`
	Since      int `json:"since"`
}

// Counts are a round's findings by severity.
type Counts struct {
	Critical int `json:"critical"`
	High     int `json:"high"`
	Medium   int `json:"medium"`
	Low      int `json:"low"`
}

// roundData is what round and decision events' data hold of a round.
type roundData struct {
	Round      int        `json:"round"`
	SHA        string     `json:"sha"`
	Run        int64      `json:"run"`
	RunAttempt int        `json:"run_attempt"`
	Decision   string     `json:"decision"`
	Verdict    string     `json:"verdict"`
	Status     string     `json:"status"`
	Counts     *Counts    `json:"counts"`
	Movement   *Movement  `json:"movement"`
	Actor      string     `json:"actor"`
	Started    *time.Time `json:"started"`
	Ended      *time.Time `json:"ended"`
	Ignored    string     `json:"ignored"`
	Error      string     `json:"error"`
}

// maxLoopsPerPR bounds the loop ids one answer folds: a pull request has a
// handful; events naming more are left out.
const maxLoopsPerPR = 64

// maxRoundsPerLoop bounds the rounds one loop keeps in an answer, the
// newest kept.
const maxRoundsPerLoop = 1000

// LoopHistory serves GET /api/loops/{owner}/{repo}/{pr}: the History of
// one pull request, behind the same viewer filter as /api/loops. A
// repository the viewer may not read, or a pull request with no retained
// event of a loop, is a 404: the answer does not tell one from the other.
func (h *Hub) LoopHistory() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := h.apiQuery(w, r); !ok {
			return
		}
		repo := r.PathValue("owner") + "/" + r.PathValue("repo")
		pr, err := strconv.Atoi(r.PathValue("pr"))
		if !validRepo(repo) || err != nil || pr <= 0 || strconv.Itoa(pr) != r.PathValue("pr") {
			http.Error(w, "want /api/loops/{owner}/{repo}/{pr}: a repository and a pull request number", http.StatusBadRequest)
			return
		}
		f := newHistoryFolder()
		err = h.scanShown(r, repo, 0, func(e event.Event) bool {
			if e.PR == pr {
				f.add(e)
			}
			return true
		})
		if err != nil {
			h.unavailable(w, err)
			return
		}
		loops := f.loops()
		if len(loops) == 0 {
			http.Error(w, "no loop of "+repo+"#"+strconv.Itoa(pr)+" in the retained event log", http.StatusNotFound)
			return
		}
		writeJSON(w, History{Repo: repo, PR: pr, Loops: loops})
	})
}

// historyFolder folds one pull request's events, in ID order, into its
// loops' rounds.
type historyFolder struct {
	byLoop map[string]*loopFold
}

type loopFold struct {
	rounds  []RoundRow // in round order
	current *RoundRow
}

func newHistoryFolder() *historyFolder { return &historyFolder{byLoop: map[string]*loopFold{}} }

// add folds one event of the pull request.
func (f *historyFolder) add(e event.Event) {
	if e.Loop == "" || e.Type != event.Round && e.Type != event.Decision && e.Type != event.Error {
		return
	}
	lf := f.byLoop[e.Loop]
	if lf == nil {
		if len(f.byLoop) >= maxLoopsPerPR {
			return
		}
		lf = &loopFold{}
		f.byLoop[e.Loop] = lf
	}
	var d roundData
	// Data the bot wrote; a field of another type is left out, the rest
	// of the row stands.
	_ = json.Unmarshal(e.Data, &d)
	t := e.Time
	switch e.Type {
	case event.Round:
		if d.Ignored != "" {
			return // a stale run: recorded, not a round
		}
		lf.current = &RoundRow{SHA: cut(d.SHA), Run: d.Run, State: StateRunning, Started: &t, Event: e.ID}
	case event.Error:
		if lf.current != nil {
			lf.current.State, lf.current.Error, lf.current.Event = StateFailed, cut(d.Error), e.ID
			if lf.current.Error == "" {
				lf.current.Error = "error"
			}
		}
	case event.Decision:
		if d.Round <= 0 {
			return
		}
		row := RoundRow{Round: d.Round, SHA: cut(d.SHA), Run: d.Run, RunAttempt: d.RunAttempt, State: StateDecided,
			Decision: cut(d.Decision), Verdict: cut(d.Verdict), Status: cut(d.Status), Counts: d.Counts,
			Movement: d.Movement, Actor: cut(d.Actor), Started: d.Started, Ended: d.Ended, Decided: &t, Event: e.ID}
		if c := lf.current; row.Started == nil && c != nil && (row.Run == 0 || c.Run == row.Run) {
			// An event without the round's times: the bot's own, from the
			// round's start event to its decision.
			row.Started, row.Ended = c.Started, &t
		}
		if row.Run == 0 && lf.current != nil {
			row.Run = lf.current.Run
		}
		if row.Started != nil && row.Ended != nil && !row.Ended.Before(*row.Started) {
			s := row.Ended.Sub(*row.Started).Seconds()
			row.Duration = &s
		}
		lf.current = nil
		lf.record(row)
	}
}

// record puts a decided round in: it replaces the round of the same
// number (a re-run) and drops rounds after it, as the loop's state does.
func (lf *loopFold) record(row RoundRow) {
	i := sort.Search(len(lf.rounds), func(i int) bool { return lf.rounds[i].Round >= row.Round })
	lf.rounds = append(lf.rounds[:i], row)
	if len(lf.rounds) > maxRoundsPerLoop {
		lf.rounds = append(lf.rounds[:0], lf.rounds[len(lf.rounds)-maxRoundsPerLoop:]...)
	}
}

// loops returns the folded loops in loop id order; only loops with a round
// (decided, running or failed).
func (f *historyFolder) loops() []LoopHistory {
	out := make([]LoopHistory, 0, len(f.byLoop))
	for id, lf := range f.byLoop {
		if len(lf.rounds) == 0 && lf.current == nil {
			continue
		}
		rounds := lf.rounds
		if rounds == nil {
			rounds = []RoundRow{}
		}
		out = append(out, LoopHistory{Loop: id, Rounds: rounds, Current: lf.current})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Loop < out[j].Loop })
	return out
}
