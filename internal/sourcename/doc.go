// Package sourcename owns the filename grammar shared by Dynamo worker logs
// and Nsight SQLite exports: it turns a base name such as
// "node-a_decode_w0_e1_profile_gpu0-1_window001.sqlite" into the recorded
// worker identity (host, role, index, failover engine, rank or GPU set).
//
// The grammar is the reference's, exactly:
//
//	worker:   (?P<host>.+)_(?P<role>prefill|decode|agg|aggregated)_w(?P<index>\d+)(?:_e(?P<engine>\d+))?(?:_profile_(?:rank(?P<rank>\d+)|gpu(?P<gpus>[\d-]+)))?(?:_window\d+)?\.(?:out|sqlite)$
//	frontend: (.+)_frontend_\d+(?:_window\d+)?\.(?:out|sqlite)$
//
// A name describes a capture, never the ranks hidden inside it: a GPU-set
// name does not imply rank 0. Names that match neither rule are unmapped.
//
// It imports only the standard library and internal/model (whose role names
// it uses), and does no I/O.
package sourcename
