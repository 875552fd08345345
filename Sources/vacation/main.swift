print("vacation")
