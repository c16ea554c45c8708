/**
 * The script each of SQLite's read threads runs (store/sqlite/threads): the engine holds the
 * threads and their connections; this entry gives them the search pipeline's searches and
 * the indexer's jobs, which live above the engine.
 */
import { indexThreadJobs } from './index-thread-jobs.js'
import { createReaderOps } from '../search/index-reader.js'
import { serveIndexThread } from '../store/sqlite/threads/thread-main.js'

serveIndexThread({ readOps: createReaderOps, jobs: indexThreadJobs })
