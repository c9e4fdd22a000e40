package main

import (
	"slices"
	"sync"
	"time"
)

// Todo is one item of the list.
type Todo struct {
	ID        int64     `json:"id"`
	Title     string    `json:"title"`
	Done      bool      `json:"done"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// store keeps the todos in memory (a real service would use a database;
// the API does not change).
type store struct {
	mu     sync.Mutex
	nextID int64
	todos  map[int64]Todo
}

func newStore() *store { return &store{nextID: 1, todos: make(map[int64]Todo)} }

// list returns every todo, oldest first.
func (s *store) list() []Todo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Todo, 0, len(s.todos))
	for _, t := range s.todos {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Todo) int { return int(a.ID - b.ID) })
	return out
}

func (s *store) create(title string) Todo {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now().UTC()
	t := Todo{ID: s.nextID, Title: title, CreatedAt: now, UpdatedAt: now}
	s.nextID++
	s.todos[t.ID] = t
	return t
}

func (s *store) get(id int64) (Todo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.todos[id]
	return t, ok
}

// update applies the fields that are set and returns the new todo.
func (s *store) update(id int64, title *string, done *bool) (Todo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.todos[id]
	if !ok {
		return Todo{}, false
	}
	if title != nil {
		t.Title = *title
	}
	if done != nil {
		t.Done = *done
	}
	t.UpdatedAt = time.Now().UTC()
	s.todos[id] = t
	return t, true
}

func (s *store) delete(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.todos[id]
	delete(s.todos, id)
	return ok
}
