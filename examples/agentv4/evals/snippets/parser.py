def parse_port(value):
    try:
        return int(value)
    except:
        return 8080
