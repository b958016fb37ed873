package sessions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A holder whose directory is removed ends, whenever the removal comes:
// before its watch began (removed right after start returned) as well as
// while it watches. The landed watch gave up when the directory was
// already gone, and the holder lived on until its idle timeout.
func TestWatchDirStopsWheneverTheDirectoryGoes(t *testing.T) {
	for _, early := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "s1")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if early {
			os.Remove(dir)
		}
		stop := make(chan string, 1)
		go WatchDir(dir, stop)
		if !early {
			os.Remove(dir)
		}
		select {
		case why := <-stop:
			if !strings.Contains(why, "removed") {
				t.Errorf("early=%v: WatchDir sent %q, want a reason saying the directory was removed", early, why)
			}
		case <-time.After(time.Minute):
			t.Fatalf("early=%v: WatchDir never reported the removed directory", early)
		}
	}
}
