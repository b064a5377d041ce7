package githubtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Comment is a stored issue comment.
type Comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
	User    struct {
		Login string `json:"login"`
	} `json:"user"`
}

// Failure makes the next matching requests fail.
type Failure struct {
	Method string // "" matches any
	Status int
	// Secondary makes a 403 a secondary rate limit (documentation_url and Retry-After).
	Secondary  bool
	RetryAfter int
	Times      int
}

// Server is a fake GitHub API.
type Server struct {
	*httptest.Server
	mu       sync.Mutex
	comments map[int][]*Comment // by issue number
	nextID   int64
	failures []*Failure
	// Requests records "METHOD PATH?QUERY" of every request.
	Requests []string
	// Tokens records the Authorization headers seen.
	Tokens []string
	// PerPage overrides the page size (GitHub's default is 30, max 100).
	PerPage int
}

// New starts a fake server.
func New() *Server {
	s := &Server{comments: map[int][]*Comment{}, nextID: 1000}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL returns the API root to give go-github.
func (s *Server) APIURL() string { return s.Server.URL + "/" }

// Seed adds comments to an issue.
func (s *Server) Seed(issue int, bodies ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range bodies {
		s.nextID++
		c := &Comment{ID: s.nextID, Body: b, HTMLURL: fmt.Sprintf("https://github.example/pr/%d#issuecomment-%d", issue, s.nextID)}
		c.User.Login = "someone"
		s.comments[issue] = append(s.comments[issue], c)
	}
}

// Fail queues a failure.
func (s *Server) Fail(f Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Times == 0 {
		f.Times = 1
	}
	s.failures = append(s.failures, &f)
}

// Comments returns an issue's comments.
func (s *Server) Comments(issue int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments[issue] {
		out = append(out, *c)
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Requests = append(s.Requests, r.Method+" "+r.URL.RequestURI())
	s.Tokens = append(s.Tokens, r.Header.Get("Authorization"))
	for i, f := range s.failures {
		if f.Times > 0 && (f.Method == "" || f.Method == r.Method) {
			f.Times--
			if f.Times == 0 {
				s.failures = append(s.failures[:i], s.failures[i+1:]...)
			}
			if f.Secondary {
				w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
				writeJSON(w, http.StatusForbidden, map[string]string{"message": "You have exceeded a secondary rate limit.",
					"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"})
				return
			}
			msg := map[int]string{403: "Resource not accessible by integration", 404: "Not Found", 422: "Validation Failed", 500: "Server Error", 502: "Bad Gateway"}[f.Status]
			body := map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest"}
			if f.Status == 422 {
				body["errors"] = []map[string]string{{"resource": "IssueComment", "code": "custom", "field": "body", "message": "body is too long (maximum is 65536 characters)"}}
			}
			writeJSON(w, f.Status, body)
			return
		}
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	// repos/{owner}/{repo}/issues/{n}/comments or repos/{owner}/{repo}/issues/comments/{id}
	if len(parts) < 5 || parts[0] != "repos" || parts[3] != "issues" {
		writeJSON(w, 404, map[string]string{"message": "Not Found"})
		return
	}
	switch {
	case len(parts) == 6 && parts[5] == "comments":
		n, err := strconv.Atoi(parts[4])
		if err != nil {
			writeJSON(w, 404, map[string]string{"message": "Not Found"})
			return
		}
		switch r.Method {
		case http.MethodGet:
			s.list(w, r, n)
		case http.MethodPost:
			var in struct{ Body string }
			if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
				writeJSON(w, 400, map[string]string{"message": "Problems parsing JSON"})
				return
			}
			if len([]rune(in.Body)) > 65536 {
				writeJSON(w, 422, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"code": "custom", "field": "body", "message": "body is too long (maximum is 65536 characters)"}}})
				return
			}
			s.nextID++
			c := &Comment{ID: s.nextID, Body: in.Body, HTMLURL: fmt.Sprintf("https://github.example/pr/%d#issuecomment-%d", n, s.nextID)}
			c.User.Login = "github-actions[bot]"
			s.comments[n] = append(s.comments[n], c)
			writeJSON(w, 201, c)
		default:
			writeJSON(w, 405, map[string]string{"message": "Method Not Allowed"})
		}
	case len(parts) == 6 && parts[4] == "comments":
		id, _ := strconv.ParseInt(parts[5], 10, 64)
		for n, cs := range s.comments {
			for i, c := range cs {
				if c.ID != id {
					continue
				}
				switch r.Method {
				case http.MethodPatch:
					var in struct{ Body string }
					_ = json.NewDecoder(r.Body).Decode(&in)
					if len([]rune(in.Body)) > 65536 {
						writeJSON(w, 422, map[string]any{"message": "Validation Failed"})
						return
					}
					c.Body = in.Body
					writeJSON(w, 200, c)
				case http.MethodDelete:
					s.comments[n] = append(cs[:i], cs[i+1:]...)
					w.WriteHeader(204)
				default:
					writeJSON(w, 405, map[string]string{"message": "Method Not Allowed"})
				}
				return
			}
		}
		writeJSON(w, 404, map[string]string{"message": "Not Found"})
	default:
		writeJSON(w, 404, map[string]string{"message": "Not Found"})
	}
}

// list serves a page of comments with GitHub's Link header.
func (s *Server) list(w http.ResponseWriter, r *http.Request, n int) {
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	if per > 100 {
		per = 100
	}
	if s.PerPage > 0 {
		per = s.PerPage
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page <= 0 {
		page = 1
	}
	all := append([]*Comment(nil), s.comments[n]...)
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	lo, hi := (page-1)*per, page*per
	if lo > len(all) {
		lo = len(all)
	}
	if hi > len(all) {
		hi = len(all)
	}
	last := (len(all) + per - 1) / per
	if last == 0 {
		last = 1
	}
	base := fmt.Sprintf("%s%s", s.Server.URL, r.URL.Path)
	var links []string
	if page < last {
		links = append(links, fmt.Sprintf(`<%s?per_page=%d&page=%d>; rel="next"`, base, per, page+1), fmt.Sprintf(`<%s?per_page=%d&page=%d>; rel="last"`, base, per, last))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	out := all[lo:hi]
	if out == nil {
		out = []*Comment{}
	}
	writeJSON(w, 200, out)
}
