package sweep

// hashLen is the length of Run.Hash, which names a run's files.
const hashLen = 16

// IsRunFile reports whether name is one a sweep or figure keeps in its
// results directory: a run's result (<hash>.json), its failure
// (<hash>.failed.json) or a result set aside as stale (<hash>.json.stale).
// Whatever run it belongs to, no other output may replace it.
func IsRunFile(name string) bool {
	if len(name) <= hashLen {
		return false
	}
	for _, c := range name[:hashLen] {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	switch name[hashLen:] {
	case ".json", ".failed.json", ".json.stale":
		return true
	}
	return false
}
