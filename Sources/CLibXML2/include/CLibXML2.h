// libxml2's API as the framework uses it, loaded from libxml2.so.2 on first use (XMLLoader.c).
//
// The headers are Debian's (libxml2-dev): `libxml` beside this file links to
// /usr/include/libxml2/libxml, so that every module importing this one finds them without a
// search path of its own.
#ifndef VACATIONS_CLIBXML2_H
#define VACATIONS_CLIBXML2_H
#include <stddef.h>
#include "libxml/xmlversion.h"
// Debian's libxml2 is built with ICU; its headers clash with the toolchain's ICU module
// on clean builds ("'UErrorCode' has different definitions in different modules").
#undef LIBXML_ICU_ENABLED
#include "libxml/parser.h"
#include "libxml/xmlreader.h"
#include "libxml/xmlerror.h"
#include "libxml/xmlmemory.h"

/// Loads libxml2.so.2 and initialises the parser, once per process (any thread; later calls
/// return at once). Returns NULL when libxml2 is ready, else why it cannot be loaded (a
/// message that lives as long as the process). Call it before any other function here.
const char *vacations_libxml2_load(void);

/// libxml2's `xmlFree`, for strings it hands over (`xmlTextReaderGetAttribute`,
/// `xmlNodeListGetString`).
void vacations_xml_free(void *pointer);
#endif
