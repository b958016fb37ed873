package cluster

// Resource is one stream, bucket or object store Init creates, with the
// name of the JetStream stream that holds it (a bucket's is KV_<name>,
// an object store's OBJ_<name>).
type Resource struct {
	Kind   string `json:"kind"` // "stream", "bucket" or "object store"
	Name   string `json:"name"`
	Stream string `json:"stream"`
}

// Inventory lists what Init creates, in the order it creates it, for the
// commands that report on a cluster (init, status).
func Inventory() []Resource {
	var out []Resource
	for _, s := range []string{JournalStream, InboxStream, TaskStream, ResultStream} {
		out = append(out, Resource{Kind: "stream", Name: s, Stream: s})
	}
	for _, b := range []string{RunsBucket, LeaseBucket, WorkerBucket, BatchBucket} {
		out = append(out, Resource{Kind: "bucket", Name: b, Stream: "KV_" + b})
	}
	for _, o := range objectStores {
		out = append(out, Resource{Kind: "object store", Name: o, Stream: "OBJ_" + o})
	}
	return out
}
