package capture

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ProcessTree returns root and all its descendants, read from /proc (Linux). Elsewhere, or when
// /proc cannot be read, it is root alone.
func ProcessTree(root int) map[uint32]bool {
	tree := map[uint32]bool{uint32(root): true}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return tree
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		children[ppid] = append(children[ppid], pid)
	}
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if !tree[uint32(c)] {
				tree[uint32(c)] = true
				queue = append(queue, c)
			}
		}
	}
	return tree
}

// processAlive reports whether a process exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || err == syscall.EPERM
}
