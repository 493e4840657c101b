print("hearth-hub")
