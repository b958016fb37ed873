package journal

// The key table of the journal's decoder (decode.go): every key of
// Event, its field index and its bit, and the slot table that finds a
// key's index without hashing it for a map.

// The fields of Event by their index in eventKeys, which is also their
// bit in decodeFields' masks.
const (
	fType = iota
	fSeq
	fTimestamp
	fIteration
	fRunID
	fAgentHome
	fWorkDir
	fConfig
	fStatus
	fFinalIteration
	fContent
	fToolCalls
	fUsage
	fModel
	fInvocationRef
	fCallID
	fToolName
	fToolArgs
	fObservationContent
	fExitCode
	fIsError
	fDurationMS
	fExecutionRef
	fPrompt
	fInputType
	fSensitive
	fResponse
	fErrorMessage
	fErrorDetails
	fHookName
	fDecision
	fHookRef
	fResponseID
	fReasoning
	fKind
	fSource
	fMessageID
	fRule
	fBy
	fParentRunID
	fSandboxRefused
	fUnsandboxed
	fParts
	fOutputFile
	fStderrFile
	fPath
	fPaths
	numFields
)

// eventKeys are the JSON keys of Event's fields.
var eventKeys = [numFields]string{fType: "type", fSeq: "seq", fTimestamp: "timestamp", fIteration: "iteration",
	fRunID: "run_id", fAgentHome: "agent_home", fWorkDir: "work_dir", fConfig: "config", fStatus: "status",
	fFinalIteration: "final_iteration", fContent: "content", fToolCalls: "tool_calls", fUsage: "usage",
	fModel: "model", fInvocationRef: "invocation_ref", fCallID: "call_id", fToolName: "tool_name",
	fToolArgs: "tool_args", fObservationContent: "observation_content", fExitCode: "exit_code",
	fIsError: "is_error", fDurationMS: "duration_ms", fExecutionRef: "execution_ref", fPrompt: "prompt",
	fInputType: "input_type", fSensitive: "sensitive", fResponse: "response", fErrorMessage: "error_message",
	fErrorDetails: "error_details", fHookName: "hook_name", fDecision: "decision", fHookRef: "hook_ref",
	fResponseID: "response_id", fReasoning: "reasoning", fKind: "kind", fSource: "source",
	fMessageID: "message_id", fRule: "rule", fBy: "by", fParentRunID: "parent_run_id",
	fSandboxRefused: "sandbox_refused", fUnsandboxed: "unsandboxed", fParts: "parts",

	fOutputFile: "output_file", fStderrFile: "stderr_file", fPath: "path", fPaths: "paths"}

// eventFieldBits gives every JSON key of Event its bit, for ScanFields.
var eventFieldBits = func() map[string]uint64 {
	m := make(map[string]uint64, len(eventKeys))
	for i, k := range eventKeys {
		m[k] = 1 << i
	}
	return m
}()

// keySlots finds a key's index from keyHash: one table load and one
// comparison per key instead of hashing it for a map, which was a tenth
// of reading a long journal. The multipliers were searched for so that
// Event's keys do not collide (the middle letter is in the hash because
// "parts" and "paths" share their length, first and last letters) (a test holds them to it); a key that took
// another's slot would only be decoded by encoding/json, never wrongly.
var keySlots = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i, k := range eventKeys {
		if h := keyHash(k); t[h] < 0 {
			t[h] = int8(i)
		}
	}
	return t
}()

func keyHash[S string | []byte](k S) byte {
	return byte(len(k)*2 + int(k[0])*2 + int(k[len(k)-1]) + int(k[len(k)/2])*20)
}

// keyIndex is the index in eventKeys of key, -1 for a key that is not
// Event's.
func keyIndex(key []byte) int {
	if len(key) == 0 {
		return -1
	}
	i := keySlots[keyHash(key)]
	if i < 0 || eventKeys[i] != string(key) {
		return -1
	}
	return int(i)
}
