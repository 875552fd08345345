#!/usr/bin/env python3
"""Rebuilds an Xcode `contents` model from the compiled model a Core Data store caches.

Usage: make_contents.py STORE > MoneyWell.xcdatamodel/contents

Z_MODELCACHE holds the store's model as raw DEFLATE of an NSKeyedArchiver plist. This walks
the archive (no Apple classes needed) and writes the entities, attributes and relationships
as Xcode 4 would. Subentities list inherited properties too; only declared ones are written.
"""
import plistlib, sqlite3, sys, zlib
from xml.sax.saxutils import quoteattr

TYPES = {0: "Undefined", 100: "Integer 16", 200: "Integer 32", 300: "Integer 64", 400: "Decimal",
         500: "Double", 600: "Float", 700: "String", 800: "Boolean", 900: "Date", 1000: "Binary",
         1100: "UUID", 1200: "URI", 1800: "Transformable", 2000: "Object ID"}
RULES = {0: "No Action", 1: "Nullify", 2: "Cascade", 3: "Deny"}

store = sqlite3.connect(sys.argv[1])
archive = plistlib.loads(zlib.decompress(store.execute("select Z_CONTENT from Z_MODELCACHE").fetchone()[0], -15))
objects = archive["$objects"]

def deref(value):
    return objects[value.data] if isinstance(value, plistlib.UID) else value

def text(value):
    value = deref(value)
    if value == "$null" or value is None:
        return None
    return value["NS.string"] if isinstance(value, dict) and "NS.string" in value else value

def pairs(value):
    value = deref(value)
    if value == "$null" or value is None:
        return []
    if "NS.keys" in value:
        return [(text(k), deref(v)) for k, v in zip(value["NS.keys"], value["NS.objects"])]
    keys = deref(deref(value["searchMapping"])["keys"])["NS.objects"]
    return [(text(k), deref(v)) for k, v in zip(keys, deref(value["values"])["NS.objects"])]

def class_name(value):
    return deref(value["$class"])["$classname"]

def yes(flag):
    return "YES" if flag else "NO"

root = deref(archive["$top"]["root"])
entities = sorted(pairs(root["NSEntities"]), key=lambda pair: pair[0])
print('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>')
print('<model userDefinedModelVersionIdentifier="" type="com.apple.IDECoreDataModeler.DataModel" '
      'documentVersion="1.0" minimumToolsVersion="Automatic">')
for name, entity in entities:
    parent = deref(entity["NSSuperentity"])
    inherited = set(k for k, _ in pairs(parent["NSProperties"])) if parent != "$null" else set()
    head = f'    <entity name={quoteattr(name)}'
    if text(entity.get("NSClassNameForEntity")):
        head += f' representedClassName={quoteattr(text(entity["NSClassNameForEntity"]))}'
    if parent != "$null":
        head += f' parentEntity={quoteattr(text(parent["NSEntityName"]))}'
    if entity.get("NSIsAbstract"):
        head += ' isAbstract="YES"'
    print(head + ' syncable="YES">')
    declared = sorted(((k, p) for k, p in pairs(entity["NSProperties"]) if k not in inherited),
                      key=lambda pair: (class_name(pair[1]) != "NSAttributeDescription", pair[0]))
    for key, prop in declared:
        line = f'        <{{}} name={quoteattr(key)}'
        if prop.get("NSIsOptional"):
            line += ' optional="YES"'
        if prop.get("NSIsTransient"):
            line += ' transient="YES"'
        if class_name(prop) == "NSAttributeDescription":
            line = line.format("attribute") + f' attributeType="{TYPES[prop["NSAttributeType"]]}"'
            if prop.get("NSIsIndexed"):
                line += ' indexed="YES"'
        elif class_name(prop) == "NSRelationshipDescription":
            line = line.format("relationship")
            if prop["NSMaxCount"] != 1:
                line += ' toMany="YES"'
            if prop["NSMinCount"]:
                line += f' minCount="{prop["NSMinCount"]}"'
            if prop["NSMaxCount"]:
                line += f' maxCount="{prop["NSMaxCount"]}"'
            line += f' deletionRule="{RULES[prop["NSDeleteRule"]]}"'
            if prop.get("NSIsOrdered"):
                line += ' ordered="YES"'
            line += f' destinationEntity={quoteattr(text(prop["_NSDestinationEntityName"]))}'
            inverse = text(prop.get("_NSInverseRelationshipName"))
            if inverse:
                destination = text(prop["_NSDestinationEntityName"])
                line += f' inverseName={quoteattr(inverse)} inverseEntity={quoteattr(destination)}'
        else:
            continue
        print(line + ' syncable="YES"/>')
    print('    </entity>')
print('</model>')
