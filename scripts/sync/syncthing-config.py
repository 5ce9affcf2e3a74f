#!/usr/bin/env python3
"""Rewrites a generated Syncthing config for the sync test: 127.0.0.1 only (listen and GUI),
global discovery, local discovery, relays, NAT traversal, usage reports and upgrades off; one
shared folder with the other instance, watched with inotify and rescanned rarely.

usage: syncthing-config.py CONFIG LISTEN_PORT GUI_PORT FOLDER_PATH PEER_ID PEER_PORT
"""
import sys
import xml.etree.ElementTree as ET

config, listen, gui, folder_path, peer_id, peer_port = sys.argv[1:7]
tree = ET.parse(config)
root = tree.getroot()
me = root.find("device").get("id")

for old in root.findall("folder"):
    root.remove(old)
for old in root.findall("device"):
    if old.get("id") != me:
        root.remove(old)
for device in root.findall("device"):
    device.find("address").text = "dynamic"

peer = ET.SubElement(root, "device", id=peer_id, name="peer", compression="metadata", introducer="false",
                     skipIntroductionRemovals="false", introducedBy="")
ET.SubElement(peer, "address").text = f"tcp://127.0.0.1:{peer_port}"
ET.SubElement(peer, "paused").text = "false"
ET.SubElement(peer, "autoAcceptFolders").text = "false"

folder = ET.Element("folder", id="time-sync", label="Time", path=folder_path, type="sendreceive",
                    rescanIntervalS="3600", fsWatcherEnabled="true", fsWatcherDelayS="1", ignorePerms="false", autoNormalize="true")
ET.SubElement(folder, "device", id=me, introducedBy="")
ET.SubElement(folder, "device", id=peer_id, introducedBy="")
ET.SubElement(folder, "minDiskFree", unit="%").text = "1"
ET.SubElement(folder, "markerName").text = ".stfolder"
root.insert(0, folder)

gui_element = root.find("gui")
gui_element.set("enabled", "true")
gui_element.set("tls", "false")
gui_element.find("address").text = f"127.0.0.1:{gui}"

options = root.find("options")
def option(name, value):
    element = options.find(name)
    if element is None:
        element = ET.SubElement(options, name)
    element.text = value
for element in options.findall("listenAddress"):
    options.remove(element)
option("listenAddress", f"tcp://127.0.0.1:{listen}")
option("globalAnnounceEnabled", "false")
option("localAnnounceEnabled", "false")
option("relaysEnabled", "false")
option("natEnabled", "false")
option("startBrowser", "false")
option("urAccepted", "-1")
option("autoUpgradeIntervalH", "0")
option("crashReportingEnabled", "false")
option("announceLANAddresses", "false")
for element in options.findall("globalAnnounceServer"):
    options.remove(element)
tree.write(config)
