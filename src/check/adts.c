/* The built-in ADTs (adts.h). */
#include "adts.h"

#include <string.h>

static const ChkAdt adts[] = {
    {"Option", {"T"}, 1, 2, {{"Some", 1, {{"value", "T"}}}, {"None", 0, {{0}}}}},
    {"Result", {"T", "E"}, 2, 2, {{"Ok", 1, {{"value", "T"}}}, {"Err", 1, {{"error", "E"}}}}},
    {"JsonValue", {0}, 0, 7,
     {{"JsonString", 1, {{"value", "String"}}},
      {"JsonInt", 1, {{"value", "Int"}}},
      {"JsonFloat", 1, {{"value", "Float"}}},
      {"JsonBool", 1, {{"value", "Bool"}}},
      {"JsonNull", 0, {{0}}},
      {"JsonArray", 1, {{"items", "List[JsonValue]"}}},
      {"JsonObject", 1, {{"entries", "List[(String, JsonValue)]"}}}}},
    {"HttpResponse", {0}, 0, 1,
     {{"HttpResponse", 3, {{"status", "Int"}, {"body", "String"}, {"headers", "List[(String, String)]"}}}}},
    {"HttpRequest", {0}, 0, 1,
     {{"HttpRequest", 5,
       {{"method", "String"}, {"path", "String"}, {"query", "String"}, {"headers", "List[(String, String)]"},
        {"body", "String"}}}}},
    {"ProcessResult", {0}, 0, 1,
     {{"ProcessResult", 3, {{"exit_code", "Int"}, {"stdout", "String"}, {"stderr", "String"}}}}},
    {"FileKind", {0}, 0, 4,
     {{"FileKindFile", 0, {{0}}},
      {"FileKindDirectory", 0, {{0}}},
      {"FileKindSymlink", 0, {{0}}},
      {"FileKindOther", 0, {{0}}}}},
    {"FileMetadata", {0}, 0, 1,
     {{"FileMetadata", 3, {{"kind", "FileKind"}, {"size", "Int"}, {"modified_ms", "Int"}}}}},
};

const ChkAdt *chk_adts(size_t *count) {
  *count = sizeof adts / sizeof adts[0];
  return adts;
}

const ChkAdt *chk_adt_find(const char *name) {
  for (size_t i = 0; i < sizeof adts / sizeof adts[0]; i++)
    if (strcmp(adts[i].name, name) == 0) return &adts[i];
  return NULL;
}
