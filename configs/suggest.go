package configs

import "strings"

// Suggest returns the candidate closest to word when it is close enough
// to be a likely typo (an edit distance of at most a third of its length,
// at least 1, ignoring case), or "". It backs the "did you mean" of
// messages about keys, rules, profiles and column names.
func Suggest(word string, candidates []string) string {
	w := strings.ToLower(strings.TrimSpace(word))
	if w == "" {
		return ""
	}
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(w, strings.ToLower(c))
		if d == 0 && c != word {
			return c
		}
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > max(1, len([]rune(w))/3) || best == word {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b (by rune),
// with an adjacent transposition counted as one edit.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	if len(x) > 64 || len(y) > 64 {
		if a == b {
			return 0
		}
		return max(len(x), len(y))
	}
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}
