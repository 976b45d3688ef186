"""AgentV formats: one package per runtime generation (v2 in `formats/v2/`, 4.x in `formats/v4/`)
over the shared core (`engine/`, `checks/`), chosen at one dispatch point (`formats.runtime`)."""
