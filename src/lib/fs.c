/* Filesystem builtins (capability fs): every one is a host callback; the
 * library itself never touches the filesystem.
 *
 * The rows at the bottom are this family's part of the builtin table
 * (src/lib/builtins.h); the implementations are written above them. */
#include <geno.h>

#include "families.h"

const BuiltinDef lib_fs_builtins[] = {
    {"fs_canonicalize", "(path: String) -> Result[String, String]", GENO_CAP_FS, "fs", BF_CALLBACK, NULL, "$b_fs_canonicalize"},
    {"fs_exists", "(path: String) -> Bool", GENO_CAP_FS, "fs", BF_CALLBACK, NULL, "$b_fs_exists"},
    {"fs_list_dir", "(path: String) -> Result[List[String], String]", GENO_CAP_FS, "fs", BF_CALLBACK, NULL, "$b_fs_list_dir"},
    {"fs_metadata", "(path: String) -> Result[FileMetadata, String]", GENO_CAP_FS, "fs", BF_CALLBACK, NULL, "$b_fs_metadata"},
    {"fs_read_text", "(path: String) -> String", GENO_CAP_FS, "fs", BF_CALLBACK, NULL, "$b_fs_read_text"},
    {"fs_symlink_metadata", "(path: String) -> Result[FileMetadata, String]", GENO_CAP_FS, "fs", BF_CALLBACK, NULL, "$b_fs_symlink_metadata"},
    {"fs_write_text", "(path: String, content: String) -> Unit", GENO_CAP_FS, "fs", BF_CALLBACK, NULL, "$b_fs_write_text"},
};
const size_t lib_fs_builtin_count = ARRAY_LEN(lib_fs_builtins);
