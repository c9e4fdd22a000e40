//go:build race

package websocket

const raceEnabled = true
