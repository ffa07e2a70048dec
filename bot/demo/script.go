package demo

import "time"

// Step is one moment of the demo's day: something happens on GitHub (a
// critic's run completes, a developer pushes, a maintainer comments) and
// GitHub sends the bot a delivery.
type Step struct {
	// At is when the step starts, from the start of the day, at pace 1.
	At time.Duration
	// Pull is the pull request the step is about.
	Pull func(w *World) *Pull
	// Say is what happens, in a few words, for the demo's output.
	Say string
	// Then is what the bot does, printed once Done saw it.
	Then string
	// Do makes it happen on the fake and returns the delivery GitHub
	// would send.
	Do func(w *World, p *Pull) (Delivery, error)
	// Done is nil once the bot has answered the step on the fake, else
	// what is still missing.
	Done func(w *World, p *Pull) error
}

func cart(w *World) *Pull   { return w.Cart }
func search(w *World) *Pull { return w.Search }
func login(w *World) *Pull  { return w.Login }

func review(name string) func(w *World, p *Pull) (Delivery, error) {
	return func(w *World, p *Pull) (Delivery, error) {
		return w.CriticRun(p, "review-results", "review-results.json", sample(name))
	}
}

func pushThenReview(name string) func(w *World, p *Pull) (Delivery, error) {
	return func(w *World, p *Pull) (Delivery, error) {
		w.Push(p)
		return review(name)(w, p)
	}
}

func command(author, body string) func(w *World, p *Pull) (Delivery, error) {
	return func(w *World, p *Pull) (Delivery, error) { return w.Comment(p, author, body) }
}

// Day is the demo's script: three pull requests, eight deliveries, under a
// minute at pace 1, the first round two seconds in.
func Day() []Step {
	return []Step{
		{At: 2 * time.Second, Pull: cart, Say: "review run: score 5.5, 5 findings",
			Then: "fix round 1 of 2: report comment, 2 fix issues, check run asks for action",
			Do:   review("review-findings.json"), Done: fixRound(2)},
		{At: 5 * time.Second, Pull: login, Say: "validation run: 3 regressions",
			Then: "fix round 1 of 3: report comment, 2 fix issues",
			Do: func(w *World, p *Pull) (Delivery, error) {
				return w.CriticRun(p, "validation-report", "validation-report.json", sample("validation-failing.json"))
			}, Done: fixRound(2)},
		{At: 8 * time.Second, Pull: search, Say: "review run: score 6.5, 2 findings",
			Then: "fix round 1 of 2: report comment, 1 fix issue",
			Do:   review("review-fewer.json"), Done: fixRound(1)},
		{At: 16 * time.Second, Pull: cart, Say: "a push; review run: score 8.5",
			Then: "CONVERGE: fix issues closed, check run success",
			Do:   pushThenReview("review-clean.json"), Done: converged},
		{At: 22 * time.Second, Pull: search, Say: "a push; review run: the same 2 findings",
			Then: "ESCALATE at the round cap: check run failure, a person decides",
			Do:   pushThenReview("review-fewer.json"), Done: escalated},
		{At: 30 * time.Second, Pull: login, Say: Maintainer + " comments /gc approve",
			Then: "approved: fix issues closed, check run success",
			Do:   command(Maintainer, "Looks right to me.\n\n/gc approve"), Done: approved},
		{At: 37 * time.Second, Pull: search, Say: Maintainer + " comments /gc retry",
			Then: "an extra round granted: review.yml dispatched",
			Do:   command(Maintainer, "/gc retry"), Done: retried},
		{At: 45 * time.Second, Pull: search, Say: "a push; review run: score 8.5",
			Then: "CONVERGE in round 3 of 3",
			Do:   pushThenReview("review-clean.json"), Done: converged},
	}
}
