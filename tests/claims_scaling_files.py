"""Claims of issue 34 (phase 2): files and their upload sessions on the Redis store, shared by every process."""

from __future__ import annotations

from claim_type import Claim

_R = "tests/scaling/test_files_redis.py::"
_P = "tests/scaling/test_files_processes.py::"
_C = "tests/scaling/test_files_contract.py::"

SCALING_FILE_CLAIMS: list[Claim] = [
    Claim(
        "redis-files-contract",
        "files.upload|create|register|get|list|delete|download on --store redis://...",
        "the files room on the Redis store passes the in-memory room's suites (google-genai sync and async uploads,"
        " resumable by hand with wrong offsets, multipart and raw, pages, 403s, fileData uris, caches naming files,"
        " metadata-only and registered files, LangChain, Veo's videos as files), the four tests of the in-memory"
        " counters aside (their Redis twins below)",
        (
            _C + "test_sdk_upload_get_list_download_delete",
            _C + "test_resumable_by_hand_two_chunks_and_wrong_offsets",
            _C + "test_upload_then_generate_mentions_the_file_and_counts_it",
            _C + "test_developer_rest_video_is_a_downloadable_file",
        ),
        source="emulator-only (docs/scaling.md, Files on Redis)",
    ),
    Claim(
        "redis-files-across-processes",
        "files on two gemini-emulator serve --store redis://... processes",
        "google-genai's 17 MiB upload whose three chunks alternate between the processes is one file, its sha256"
        " over all of them, read, listed, downloaded and deleted through either; two requests racing one offset"
        " through the two: one appends, the other gets the 400 with the session left active; a file uploaded"
        " through one feeds generate and a batch's input through the other; a state set through either's admin API"
        " holds for both; an upload half sent through a process"
        " that is then killed goes on through the other, no acknowledged byte lost",
        (
            _P + "test_a_resumable_upload_whose_chunks_land_on_different_replicas",
            _P + "test_two_processes_racing_one_offset_one_wins",
            _P + "test_a_file_from_one_process_feeds_generate_and_a_batch_on_another",
            _P + "test_an_upload_goes_on_through_another_process_when_its_first_dies",
            "tests/scaling/test_files_redis.py::test_a_batch_items_file_uris_are_checked_against_the_files_on_redis",
        ),
        source="emulator-only (docs/scaling.md)",
    ),
    Claim(
        "redis-files-bounds",
        "the Redis file store (stores/files_redis.py)",
        "the byte budget counted in Redis across stores and given back by refused, cancelled, stalled and deleted"
        " uploads; bytes in keys of at most 1 MiB, each with a TTL past the 48 h expiry; an expired file forgotten"
        " on read or by the schedule with its bytes given back; the per-caller count bound; states through the admin"
        " API; the sessions' per-caller bound, one key's 266 sessions evicting none of another's, and a lapsed"
        " session's bytes given back; a cancel while a chunk arrives gives every byte back once; one of eight"
        " racing takes of a session wins; the finalizing process's own running sha256, or the bytes read back when"
        " other processes fed some; get, list, delete and start one round trip each",
        (
            _R + "test_the_byte_budget_is_counted_in_redis_and_freed_on_delete",
            _R + "test_refused_and_cancelled_uploads_hold_nothing",
            _R + "test_states_set_through_the_admin_api_on_redis",
            _R + "test_a_stalled_chunk_gets_408_and_its_bytes_are_freed",
            _R + "test_bytes_are_chunked_and_every_key_has_a_ttl_past_the_expiry",
            _R + "test_an_expired_file_is_forgotten_on_read_and_its_bytes_given_back",
            _R + "test_the_count_bound_forgets_the_namespace_s_oldest",
            _R + "test_two_stores_share_one_budget",
            _R + "test_two_requests_racing_one_offset_one_wins",
            _R + "test_round_trips_per_call",
            _R + "test_sessions_keep_their_bounds_and_a_lapsed_one_gives_its_bytes_back",
            _R + "test_a_cancel_while_a_chunk_arrives_gives_back_every_byte_on_redis",
            _R + "test_one_keys_resumable_uploads_cannot_evict_anothers_on_redis",
            _R + "test_the_finalizing_process_hashes_what_it_fed_and_reads_back_what_it_did_not",
        ),
        source="emulator-only (docs/scaling.md, docs/security.md)",
    ),
    Claim(
        "redis-files-unavailable",
        "files calls while Redis is unreachable",
        "an upload chunk (before it or while it streams in), a raw upload, a download and a list are production's"
        " 503 UNAVAILABLE envelope within the"
        " socket timeouts; a download already under way ends short of its Content-Length, without a hang; on a Redis"
        " that hangs, a get, a chunk and the admin files listing wait for their 503 while health answers",
        (
            _R + "test_redis_gone_mid_upload_and_mid_download_is_503",
            _R + "test_redis_gone_after_a_download_began_ends_it_short_without_a_hang",
            _R + "test_a_redis_that_hangs_holds_no_event_loop_for_files",
            _R + "test_redis_gone_while_a_chunk_streams_in_is_503",
        ),
        source="emulator-only; the 503 wording best-known (seam/state.py UNAVAILABLE)",
    ),
]
