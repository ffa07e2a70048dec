// Package webhook is the bot's front door and its workers.
//
// A Receiver serves POST /webhook: it checks the delivery's signature
// before anything else, records the delivery in the store's queue with the
// key that serializes its work (one pull request at a time), and answers
// 202 within milliseconds — GitHub counts a delivery not answered within
// 10 s as failed and does not send it again.
//
// A Pool of workers claims queued deliveries from the store with a lease it
// renews while the work runs, hands each to a Handler (the bot's
// delivery.Handler), and finishes it as done, ignored or failed. Deliveries
// with the same key never run at once, across every replica sharing the
// store; a delivery whose worker died is claimed again when its lease runs
// out, and one still running at shutdown is handed back.
package webhook
