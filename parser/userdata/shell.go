package userdata

import (
	"fmt"
	"regexp"
	"strings"
)

// command is a simple shell command: its words and the line it starts on, where its output
// goes (redirections to files), the here-document it reads, and whether the command before it
// pipes its output into it.
type command struct {
	words     []shellWord
	line      int
	redirects []redirect
	heredoc   *document
	piped     bool
}

// redirect is an output redirection to a file: > F or >> F (appending), &> F too; other says it
// redirects another descriptor than standard output (2> F). Redirections of input are not kept.
type redirect struct {
	target        shellWord
	append, other bool
}

// document is a here-document's body; expand says its delimiter is unquoted, so that the
// body's $ and ` expand as they do in double quotes.
type document struct {
	body   string
	expand bool
	line   int
}

// A redirection's target is the next word; what the scanner does with it.
const (
	redirectNone   = iota
	redirectOut    // > F: kept
	redirectAppend // >> F: kept
	redirectOther  // 2> F: kept as another descriptor's
	redirectOtherAppend
	redirectDrop // input, or a descriptor duplicated: the word is not an argument, and not kept
)

// shellWord is one word of a command: raw is its source, text its value with quotes removed
// (an expansion's source kept in it), parts its pieces when it has expansions.
type shellWord struct {
	raw, text string
	dynamic   bool // it has an expansion
	parts     []wordPart
}

// wordPart is literal text, a variable ($NAME, ${NAME}), or something computed at boot.
type wordPart struct {
	text     string
	variable string
	computed bool
}

// maxCommands bounds the commands read from one script.
const maxCommands = 10000

// shellCommands splits a POSIX shell script into simple commands, as far as reading
// bootstrap.sh's arguments needs: quotes, escapes, comments, line continuations, here-documents
// and the operators that end a command (newline ; & | && || ( ) and redirections). Control
// structures are not parsed: their keywords are just words. A quote left open is an error.
func shellCommands(text string) ([]command, error) {
	s := &shellScanner{src: text, line: 1}
	return s.scan()
}

type shellScanner struct {
	src       string
	i, line   int
	commands  []command
	cur       command
	heredocs  []heredoc
	pending   int // what the next word is: a redirection's target (redirectOut, ...), or an argument
	inWord    bool
	word      shellWord
	rawStart  int
	textBuild strings.Builder
	lit       strings.Builder // the word's literal text since its last expansion
}

type heredoc struct {
	delim       string
	tabs, quote bool
	cmd         int // the index the command reading it has (or will have) in commands
	line        int
}

func (s *shellScanner) scan() ([]command, error) {
	for s.i < len(s.src) {
		if len(s.commands) > maxCommands {
			return nil, fmt.Errorf("more than %d shell commands", maxCommands)
		}
		c := s.src[s.i]
		switch {
		case c == '\n':
			s.endCommand()
			s.i++
			s.line++
			s.skipHeredocs()
		case c == ' ' || c == '\t' || c == '\r':
			s.endWord()
			s.i++
		case c == '#' && !s.inWord:
			for s.i < len(s.src) && s.src[s.i] != '\n' {
				s.i++
			}
		case c == '&' && strings.HasPrefix(s.src[s.i:], "&>"): // &> F: output and errors to F
			s.endWord()
			s.i++
			s.redirection("")
		case c == '|' && !strings.HasPrefix(s.src[s.i:], "||"):
			s.endCommand()
			s.cur.piped = true
			s.i++
			if strings.HasPrefix(s.src[s.i:], "&") { // |& pipes errors too
				s.i++
			}
		case c == '|' || c == '&': // || && &
			s.endCommand()
			s.i++
			if s.i < len(s.src) && s.src[s.i] == c {
				s.i++
			}
		case c == ';' || c == '(' || c == ')':
			s.endCommand()
			s.i++
		case c == '<' && strings.HasPrefix(s.src[s.i:], "<<") && !strings.HasPrefix(s.src[s.i:], "<<<"):
			s.endWord()
			if err := s.heredocStart(); err != nil {
				return nil, err
			}
		case c == '<' || c == '>':
			s.redirection(s.descriptor())
		case c == '\\' && strings.HasPrefix(s.src[s.i:], "\\\n"): // a line continued
			s.i += 2
			s.line++
		case c == '\\':
			s.startWord()
			if s.i+1 == len(s.src) { // a backslash that ends the script is itself
				s.literal(`\`)
				s.i++
				continue
			}
			s.literal(s.src[s.i+1 : s.i+2])
			s.i += 2
		case c == '\'':
			s.startWord()
			end := strings.IndexByte(s.src[s.i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("line %d: a single quote is not closed", s.line)
			}
			body := s.src[s.i+1 : s.i+1+end]
			s.literal(body)
			s.line += strings.Count(body, "\n")
			s.i += end + 2
		case c == '"':
			s.startWord()
			if err := s.doubleQuoted(); err != nil {
				return nil, err
			}
		case c == '$' || c == '`':
			s.startWord()
			if err := s.expansion(); err != nil {
				return nil, err
			}
		default:
			s.startWord()
			s.literal(s.src[s.i : s.i+1])
			s.i++
		}
	}
	s.endCommand()
	return s.commands, nil
}

func (s *shellScanner) startWord() {
	if !s.inWord {
		s.inWord, s.word, s.rawStart = true, shellWord{}, s.i
		if len(s.cur.words) == 0 {
			s.cur.line = s.line
		}
	}
}

func (s *shellScanner) literal(t string) {
	s.textBuild.WriteString(t)
	s.lit.WriteString(t)
}

// part ends the literal text before it and adds an expansion to the word.
func (s *shellScanner) part(p wordPart) {
	s.flushLiteral()
	s.word.dynamic = true
	s.textBuild.WriteString(p.text)
	s.word.parts = append(s.word.parts, p)
}

func (s *shellScanner) flushLiteral() {
	if s.lit.Len() > 0 {
		s.word.parts = append(s.word.parts, wordPart{text: s.lit.String()})
		s.lit.Reset()
	}
}

func (s *shellScanner) endWord() {
	if !s.inWord {
		return
	}
	s.flushLiteral()
	s.word.raw = s.src[s.rawStart:s.i]
	s.word.text = s.textBuild.String()
	s.textBuild.Reset()
	s.inWord = false
	switch s.pending {
	case redirectNone:
		s.cur.words = append(s.cur.words, s.word)
	case redirectOut, redirectAppend, redirectOther, redirectOtherAppend:
		s.cur.redirects = append(s.cur.redirects, redirect{target: s.word,
			append: s.pending == redirectAppend || s.pending == redirectOtherAppend,
			other:  s.pending == redirectOther || s.pending == redirectOtherAppend})
	}
	s.pending = redirectNone
}

// endCommand ends the command being read. A line that ends in | goes on into the next: a
// command without words keeps its piped mark.
func (s *shellScanner) endCommand() {
	s.endWord()
	s.pending = redirectNone
	if len(s.cur.words) > 0 {
		s.commands = append(s.commands, s.cur)
		s.cur = command{}
		return
	}
	s.cur = command{piped: s.cur.piped}
}

// descriptor ends the word before a redirection operator, and returns it when it is the
// descriptor the operator redirects (2>, 1>>: digits right before it), which is then no word.
func (s *shellScanner) descriptor() string {
	if s.inWord && len(s.word.parts) == 0 && s.rawStart < s.i && strings.Trim(s.src[s.rawStart:s.i], "0123456789") == "" {
		fd := s.src[s.rawStart:s.i]
		s.inWord = false
		s.textBuild.Reset()
		s.lit.Reset()
		return fd
	}
	s.endWord()
	return ""
}

// redirection reads a redirection operator at s.i (< > >> >| >& <& <>) redirecting fd ("" for
// the operator's default) and marks what the next word is: a target kept for standard output,
// else a word dropped from the command's arguments.
func (s *shellScanner) redirection(fd string) {
	out := s.src[s.i] == '>'
	s.i++
	appending := false
	switch {
	case out && strings.HasPrefix(s.src[s.i:], ">"):
		appending = true
		s.i++
	case strings.HasPrefix(s.src[s.i:], "&"): // >&2, <&0: a descriptor duplicated
		s.i++
		s.pending = redirectDrop
		return
	case out && strings.HasPrefix(s.src[s.i:], "|"), !out && strings.HasPrefix(s.src[s.i:], ">"):
		s.i++
	}
	switch {
	case !out:
		s.pending = redirectDrop
	case fd != "" && fd != "1" && appending:
		s.pending = redirectOtherAppend
	case fd != "" && fd != "1":
		s.pending = redirectOther
	case appending:
		s.pending = redirectAppend
	default:
		s.pending = redirectOut
	}
}

// doubleQuoted reads a "..." string: backslash escapes $ ` " \ and newline; $ expands.
func (s *shellScanner) doubleQuoted() error {
	start := s.line
	s.i++
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c == '\\' && s.i+1 < len(s.src) && strings.IndexByte("$`\"\\\n", s.src[s.i+1]) >= 0:
			if s.src[s.i+1] == '\n' {
				s.line++
			} else {
				s.literal(s.src[s.i+1 : s.i+2])
			}
			s.i += 2
		case c == '$' || c == '`':
			if err := s.expansion(); err != nil {
				return err
			}
		default:
			if c == '\n' {
				s.line++
			}
			s.literal(s.src[s.i : s.i+1])
			s.i++
		}
	}
	return fmt.Errorf("line %d: a double quote is not closed", start)
}

// name is a shell variable's name.
var name = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`)

// expansion reads $NAME, ${...}, $(...), $((...)), `...` or a lone $.
func (s *shellScanner) expansion() error {
	rest := s.src[s.i:]
	computed := func(n int) {
		s.part(wordPart{text: rest[:n], computed: true})
		s.line += strings.Count(rest[:n], "\n")
		s.i += n
	}
	switch {
	case rest[0] == '`':
		end := strings.IndexByte(rest[1:], '`')
		if end < 0 {
			return fmt.Errorf("line %d: a backquote is not closed", s.line)
		}
		computed(end + 2)
	case strings.HasPrefix(rest, "$("):
		n, ok := balanced(rest[1:], '(', ')')
		if !ok {
			return fmt.Errorf("line %d: a $( is not closed", s.line)
		}
		computed(n + 1)
	case strings.HasPrefix(rest, "${"):
		n, ok := balanced(rest[1:], '{', '}')
		if !ok {
			return fmt.Errorf("line %d: a ${ is not closed", s.line)
		}
		inner := rest[2:n]
		if m := name.FindString(inner); m != "" && m == inner {
			s.part(wordPart{text: rest[:n+1], variable: m})
			s.i += n + 1
			return nil
		}
		computed(n + 1)
	case name.MatchString(rest[1:]):
		m := name.FindString(rest[1:])
		s.part(wordPart{text: rest[:len(m)+1], variable: m})
		s.i += len(m) + 1
	case len(rest) > 1 && strings.IndexByte("0123456789@*#?$!-", rest[1]) >= 0:
		computed(2)
	default: // a $ that expands nothing is itself
		s.literal("$")
		s.i++
	}
	return nil
}

// balanced returns the length of text up to and including the close that matches its first
// open (text starts with open), skipping quoted text; ok is false when it is not closed.
func balanced(text string, open, close byte) (int, bool) {
	depth := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return i + 1, true
			}
		case '\'':
			end := strings.IndexByte(text[i+1:], '\'')
			if end < 0 {
				return 0, false
			}
			i += end + 1
		case '\\':
			i++
		}
	}
	return 0, false
}

// heredocStart reads << or <<- and the delimiter; the document's lines are skipped at the end
// of the line.
func (s *shellScanner) heredocStart() error {
	s.i += 2
	tabs := false
	if s.i < len(s.src) && s.src[s.i] == '-' {
		tabs = true
		s.i++
	}
	for s.i < len(s.src) && (s.src[s.i] == ' ' || s.src[s.i] == '\t') {
		s.i++
	}
	start := s.i
	for s.i < len(s.src) && strings.IndexByte(" \t\n;&|<>()", s.src[s.i]) < 0 {
		s.i++
	}
	raw := s.src[start:s.i]
	delim := strings.NewReplacer(`'`, "", `"`, "", `\`, "").Replace(raw)
	if delim == "" {
		return fmt.Errorf("line %d: a here-document has no delimiter", s.line)
	}
	s.heredocs = append(s.heredocs, heredoc{delim: delim, tabs: tabs, quote: delim != raw, cmd: len(s.commands), line: s.line})
	return nil
}

// skipHeredocs reads the bodies of the here-documents the line just ended began, and gives
// each to the command that reads it.
func (s *shellScanner) skipHeredocs() {
	for _, h := range s.heredocs {
		var body strings.Builder
		start := s.line
		for s.i < len(s.src) {
			end := strings.IndexByte(s.src[s.i:], '\n')
			line := s.src[s.i:]
			if end >= 0 {
				line = s.src[s.i : s.i+end]
			}
			if h.tabs {
				line = strings.TrimLeft(line, "\t")
			}
			if end < 0 {
				s.i = len(s.src)
			} else {
				s.i += end + 1
				s.line++
			}
			if strings.TrimRight(line, "\r") == h.delim {
				break
			}
			body.WriteString(line)
			body.WriteByte('\n')
		}
		if h.cmd < len(s.commands) && s.commands[h.cmd].line <= h.line {
			s.commands[h.cmd].heredoc = &document{body: body.String(), expand: !h.quote, line: start}
		}
	}
	s.heredocs = s.heredocs[:0]
}
