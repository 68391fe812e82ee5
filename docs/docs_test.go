// Package docs holds mgpu's documentation; its test checks that every
// relative link in the README and in docs/ resolves.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// markdownFiles are the files whose links are checked, relative to this
// directory: the README and every markdown file here.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join("..", "README.md")}, files...)
}

var (
	fence = regexp.MustCompile("^ {0,3}(```+|~~~+)")
	// An inline link or image: [text](target) or [text](target "title").
	// The text may hold code and nested brackets one level deep.
	inlineLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s)]*)(?:\s+"[^"]*")?\s*\)`)
	// A reference definition: [label]: target
	refDef   = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*(\S+)`)
	atxHead  = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$`)
	codeSpan = regexp.MustCompile("`+[^`]*`+")
	scheme   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// prose splits markdown into the lines outside fenced code blocks and the
// headings among them.
func prose(text string) (lines, headings []string) {
	var open string
	for _, l := range strings.Split(text, "\n") {
		if m := fence.FindStringSubmatch(l); m != nil {
			switch {
			case open == "":
				open = m[1]
			case strings.HasPrefix(m[1], open[:1]) && len(m[1]) >= len(open) && strings.TrimSpace(l) == m[1]:
				open = ""
			}
			continue
		}
		if open != "" {
			continue
		}
		lines = append(lines, l)
		if m := atxHead.FindStringSubmatch(l); m != nil {
			headings = append(headings, m[2])
		}
	}
	return lines, headings
}

// links returns the link targets in markdown prose (code spans left out).
func links(lines []string) []string {
	text := codeSpan.ReplaceAllString(strings.Join(lines, "\n"), "")
	var out []string
	for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
		out = append(out, strings.Trim(m[1], "<>"))
	}
	for _, m := range refDef.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// anchor is the id GitHub gives a heading: its text without markup,
// lowercased, every character but letters, digits, spaces, '-' and '_'
// dropped, spaces turned to '-'.
func anchor(heading string) string {
	h := regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1") // a link: its text
	h = strings.NewReplacer("`", "", "*", "").Replace(h)
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors is the set of heading ids in a markdown text; a repeated heading
// gets -1, -2, ... as on GitHub.
func anchors(text string) map[string]bool {
	_, heads := prose(text)
	set := map[string]bool{}
	seen := map[string]int{}
	for _, h := range heads {
		a := anchor(h)
		if n := seen[a]; n > 0 {
			seen[a]++
			a += "-" + strconv.Itoa(n)
		} else {
			seen[a] = 1
		}
		set[a] = true
	}
	return set
}

// TestRelativeLinksResolve: every relative link in the README and docs/
// names a file or directory that exists, and a #fragment into a markdown
// file names one of its headings. Absolute links (http, https, mailto) are
// not followed: the test opens no connection.
func TestRelativeLinksResolve(t *testing.T) {
	checked := 0
	for _, file := range markdownFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		lines, _ := prose(string(data))
		for _, target := range links(lines) {
			if target == "" || scheme.MatchString(target) {
				continue
			}
			checked++
			path, frag, _ := strings.Cut(target, "#")
			dest := file
			if path != "" {
				dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q: %s does not exist", file, target, dest)
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			text, err := os.ReadFile(dest)
			if err != nil {
				t.Errorf("%s: link %q: %v", file, target, err)
				continue
			}
			if !anchors(string(text))[frag] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", file, target, dest, frag)
			}
		}
	}
	t.Logf("%d relative links checked", checked)
	if checked < 50 {
		t.Errorf("checked only %d relative links; the link parser has likely stopped finding them", checked)
	}
}

// TestReadmeLinksEveryDoc: the README's Documentation section reaches every
// markdown file in docs/.
func TestReadmeLinksEveryDoc(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines, _ := prose(string(data))
	linked := map[string]bool{}
	for _, target := range links(lines) {
		path, _, _ := strings.Cut(target, "#")
		linked[path] = true
	}
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !linked["docs/"+f] {
			t.Errorf("README.md does not link docs/%s", f)
		}
	}
}

func TestAnchor(t *testing.T) {
	for h, want := range map[string]string{
		"OASIS's decisions against Observation 3 (`oasis-decisions`)": "oasiss-decisions-against-observation-3-oasis-decisions",
		"Fig. 4: MT's page access patterns":                           "fig-4-mts-page-access-patterns",
		"§IV-B: non-uniform objects and apps (`uniformity`)":          "iv-b-non-uniform-objects-and-apps-uniformity",
		"Boundaries: the path of one access and of one fault":         "boundaries-the-path-of-one-access-and-of-one-fault",
		"Now: 1.10x over the session before, far from the 5x goal":    "now-110x-over-the-session-before-far-from-the-5x-goal",
		"A [linked](x.md) *heading* with snake_case":                  "a-linked-heading-with-snake_case",
	} {
		if got := anchor(h); got != want {
			t.Errorf("anchor(%q) = %q, want %q", h, got, want)
		}
	}
	if a := anchors("# A\n\n```\n# not a heading\n```\n\n## A\n"); !a["a"] || !a["a-1"] || a["not-a-heading"] {
		t.Errorf("anchors: %v", a)
	}
}

func TestLinks(t *testing.T) {
	lines, _ := prose("see [a](a.md#x) and ![i](img.png \"t\"), `[not](code.md)`,\n[two\nlines](b.md) [x [y] z](c.md)\n```\n[in](fence.md)\n```\n[r]: d.md\n")
	got := strings.Join(links(lines), " ")
	if want := "a.md#x img.png b.md c.md d.md"; got != want {
		t.Errorf("links = %q, want %q", got, want)
	}
}
