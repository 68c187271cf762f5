// Written by scripts/build.sh for each build (js/src/formats/helper_url.*): the file of the Node helper
// thread of a partitioned run, dedup_worker.js of the same build.
export declare function helperUrl(): URL;
