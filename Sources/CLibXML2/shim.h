#ifndef VACATIONS_CLIBXML2_SHIM_H
#define VACATIONS_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU; its headers clash with the toolchain's ICU module
// on clean builds ("'UErrorCode' has different definitions in different modules").
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>

/// `xmlFree` is a global function pointer, which Swift 6 refuses as not concurrency-safe.
static inline void vacations_xml_free(void *pointer) { xmlFree(pointer); }
#endif
