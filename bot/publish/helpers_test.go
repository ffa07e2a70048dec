package publish

// bot is gcloop's identity in the tests.
const bot = "github-actions[bot]"
