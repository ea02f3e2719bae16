package model

// Link is one symbolic link found in the run: every source is reached
// through links by one rule (followed, recorded here), so that a log
// directory on shared storage is read and a link that leaves the run is
// said out loud.
type Link struct {
	// Path is the link, relative to Meta.SourceRoot, slash-separated.
	Path string
	// Target is what the link resolves to: relative to Meta.SourceRoot when
	// it lies inside the run, absolute when it does not (Outside), empty
	// when it does not resolve.
	Target  string
	Outside bool
	// Unread is why the link was not followed ("dangling: …", "loop: …",
	// "same file as …"); empty when it was.
	Unread string
}
